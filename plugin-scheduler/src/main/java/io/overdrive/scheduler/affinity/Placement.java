package io.overdrive.scheduler.affinity;

import static java.util.Objects.requireNonNull;

/**
 * Where one split goes, and which of its choices that was.
 */
public record Placement(Worker worker, PlacementKind kind)
{
    public Placement
    {
        requireNonNull(worker, "worker is null");
        requireNonNull(kind, "kind is null");
    }
}
