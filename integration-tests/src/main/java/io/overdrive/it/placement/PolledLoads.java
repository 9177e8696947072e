package io.overdrive.it.placement;

import com.google.common.base.Ticker;
import io.overdrive.scheduler.affinity.LoadReport;
import io.overdrive.scheduler.affinity.ReportedLoads;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Overdrive's load signal on the simulation's clock: the coordinator's poller as the product runs it with its defaults.
 * Every {@link #POLL_INTERVAL_NANOS} the coordinator asks every live worker for its leaf splits queued or running (here:
 * the splits placed on it and not finished, running and in its FIFO queue) and its cumulative count of completed
 * splits; the answer arrives at once (no response delay is modelled). The completion rate is the change in the count
 * over the time between that worker's last two answers (0 after its first). A worker's last answer is its report
 * while it is at most {@link #MAX_AGE_NANOS} old; a worker that has not answered yet (one that just joined) has none,
 * and the placer then balances by its decayed account.
 */
final class PolledLoads
        implements ReportedLoads
{
    /** {@code cache.peer.load-poll-interval}'s default: 500 ms. */
    static final long POLL_INTERVAL_NANOS = 500_000_000L;
    /** A report older than three poll intervals is not used. */
    static final long MAX_AGE_NANOS = 3 * POLL_INTERVAL_NANOS;

    private final Ticker ticker;
    private final Map<String, Answer> answers = new HashMap<>();

    PolledLoads(Ticker ticker)
    {
        this.ticker = requireNonNull(ticker, "ticker is null");
    }

    /** Asks every worker of {@code live} for its load now. */
    void poll(List<SimWorker> live)
    {
        long now = ticker.read();
        for (SimWorker worker : live) {
            Answer previous = answers.get(worker.nodeId);
            double rate = 0;
            if (previous != null && now > previous.receivedNanos()) {
                rate = (worker.completedSplits - previous.completedSplits()) * 1e9 / (now - previous.receivedNanos());
            }
            answers.put(worker.nodeId, new Answer(new LoadReport(worker.assigned(), rate, now), worker.completedSplits));
        }
    }

    @Override
    public LoadReport report(String nodeId)
    {
        Answer answer = answers.get(nodeId);
        if (answer == null || ticker.read() - answer.receivedNanos() > MAX_AGE_NANOS) {
            return null;
        }
        return answer.report();
    }

    private record Answer(LoadReport report, long completedSplits)
    {
        long receivedNanos()
        {
            return report.receivedNanos();
        }
    }
}
