package io.overdrive.cache;

import io.airlift.units.Duration;
import io.trino.filesystem.Location;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Set;

import static java.util.Locale.ENGLISH;
import static java.util.Objects.requireNonNull;

/**
 * What the caches key a file's content by, and when a file's key may not yet tell its versions apart.
 * <p>
 * Trino's cache keys name a file by its path alone: {@code path#modification time#length} for Hive tables, the path
 * for Iceberg's immutable files. The path has no scheme and no bucket or host, so {@code s3://a/x} and {@code s3://b/x}
 * would share a key. Overdrive's caches key by {@link #storeKey}: the file's store (scheme, user info, host and port),
 * then Trino's key.
 * <p>
 * A key with a modification time tells two versions of a file apart only if they differ in modification time or
 * length. Object stores record modification times in whole seconds, so an object rewritten at the same length within
 * the second of its earlier version keeps its key. Such a rewrite can only happen while the object's modification
 * time is the current second: a file whose key's modification time is at least {@code cache.min-file-age} old (more
 * than the second plus any difference between the workers' clocks and the store's) can no longer change without a new
 * key, so its content can be cached under that key. A younger file is read from storage, neither looked up nor cached
 * ({@link #isTooRecent}), as Git treats a "racily clean" index entry. Files whose store records modification times in
 * milliseconds or finer (HDFS, local files) and keys without a modification time (Iceberg's) are never held back.
 */
public final class CacheKeys
{
    // stores whose modification times count milliseconds or finer (memory: Trino's in-memory file system); every other store (s3, s3a, gs, abfs, ...) counts
    // whole seconds, or is not known to count finer
    private static final Set<String> FINE_GRAINED_SCHEMES = Set.of("hdfs", "viewfs", "file", "local", "memory");

    private CacheKeys() {}

    /** The file's store (scheme, user info, host and port) followed by Trino's cache key. */
    public static String storeKey(Location location, String key)
    {
        requireNonNull(key, "key is null");
        return storeOf(location) + "/" + key;
    }

    /**
     * Everything of a location before its path: {@code s3://bucket}, {@code abfs://container@account.dfs.core.windows.net},
     * {@code hdfs://namenode:8020}; {@code ://} for a location without a scheme.
     */
    public static String storeOf(Location location)
    {
        StringBuilder store = new StringBuilder();
        location.scheme().ifPresent(store::append);
        store.append("://");
        location.userInfo().ifPresent(userInfo -> store.append(userInfo).append('@'));
        location.host().ifPresent(store::append);
        location.port().ifPresent(port -> store.append(':').append(port));
        return store.toString();
    }

    /**
     * The modification time recorded in Trino's default cache key ({@code path#modification time#length}), read from
     * the key's end; empty for a key without one, such as Iceberg's (the path alone).
     */
    public static Optional<Instant> modificationTime(String key)
    {
        int lengthSeparator = key.lastIndexOf('#');
        if (lengthSeparator <= 0) {
            return Optional.empty();
        }
        int timeSeparator = key.lastIndexOf('#', lengthSeparator - 1);
        if (timeSeparator < 0) {
            return Optional.empty();
        }
        for (int i = lengthSeparator + 1; i < key.length(); i++) {
            if (!Character.isDigit(key.charAt(i))) {
                return Optional.empty();
            }
        }
        if (lengthSeparator + 1 == key.length()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(key.subSequence(timeSeparator + 1, lengthSeparator)));
        }
        catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** Whether the location's store may record modification times in whole seconds: every store but HDFS and local files. */
    public static boolean hasCoarseModificationTimes(Location location)
    {
        return location.scheme()
                .map(scheme -> !FINE_GRAINED_SCHEMES.contains(scheme.toLowerCase(ENGLISH)))
                // no scheme: HDFS, Trino's fallback file system
                .orElse(false);
    }

    /**
     * Whether the file was modified too recently for its key to be trusted: its store records modification times in
     * whole seconds, its key records one, and that time is less than {@code minFileAge} before {@code now} (or after
     * it, on a clock behind the store's).
     */
    public static boolean isTooRecent(Location location, String key, Duration minFileAge, Instant now)
    {
        if (minFileAge.toMillis() == 0 || !hasCoarseModificationTimes(location)) {
            return false;
        }
        return modificationTime(key)
                .map(modified -> now.isBefore(modified.plusMillis(minFileAge.toMillis())))
                .orElse(false);
    }
}
