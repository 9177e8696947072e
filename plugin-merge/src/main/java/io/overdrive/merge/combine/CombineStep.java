package io.overdrive.merge.combine;

/**
 * What the merge's input rows and output rows hold, as in Trino's aggregation steps: raw values or partial states.
 * Inside a parallel merge, layer-1 tasks always hand partial states to the layer-2 task.
 */
public enum CombineStep
{
    /** raw values in, final values out */
    SINGLE(false, true),
    /** raw values in, partial states out */
    PARTIAL(false, false),
    /** partial states in, partial states out */
    INTERMEDIATE(true, false),
    /** partial states in, final values out */
    FINAL(true, true);

    private final boolean stateInput;
    private final boolean finalOutput;

    CombineStep(boolean stateInput, boolean finalOutput)
    {
        this.stateInput = stateInput;
        this.finalOutput = finalOutput;
    }

    public boolean isStateInput()
    {
        return stateInput;
    }

    public boolean isFinalOutput()
    {
        return finalOutput;
    }
}
