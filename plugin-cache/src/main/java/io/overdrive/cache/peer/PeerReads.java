package io.overdrive.cache.peer;

import io.trino.spi.HostAddress;

import java.util.List;

/**
 * Reads of missed bytes from another worker's page cache, before storage ({@link PeerPageClient}); {@link #NONE} where
 * peer reads are off.
 */
public interface PeerReads
{
    PeerReads NONE = (peers, fileId, pageSize, start, target, targetOffset, length) -> false;

    /**
     * Reads {@code length} bytes from {@code start} of the file cached as {@code fileId} into {@code target} from one of
     * {@code peers}; false (the caller reads storage) whenever they did not all come, verified.
     */
    boolean read(List<HostAddress> peers, String fileId, int pageSize, long start, byte[] target, int targetOffset, int length);
}
