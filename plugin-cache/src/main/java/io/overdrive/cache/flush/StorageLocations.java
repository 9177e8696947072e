package io.overdrive.cache.flush;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;

/**
 * Storage locations as prefixes of file paths, for matching the files a flush removes. One store may be named by more
 * than one scheme: {@code s3://}, {@code s3a://} and {@code s3n://} are the same S3 bucket to Trino's file systems, and
 * a table's metadata may record its files under any of them, so they match one another.
 */
final class StorageLocations
{
    private static final List<String> S3_SCHEMES = List.of("s3a://", "s3n://", "s3://");

    private StorageLocations() {}

    /**
     * The prefixes under which the files of these locations lie, in a form {@link #matches} searches: the S3 schemes
     * made one, each ending with {@code /}, sorted, and none under another (it adds nothing). Blank locations are dropped.
     */
    static List<String> prefixes(Collection<String> locations)
    {
        TreeSet<String> sorted = new TreeSet<>();
        for (String location : locations) {
            if (!location.isBlank()) {
                String key = sameStore(location.strip());
                sorted.add(key.endsWith("/") ? key : key + "/");
            }
        }
        List<String> prefixes = new ArrayList<>(sorted.size());
        for (String prefix : sorted) {
            // in sorted order a prefix comes right after the one it lies under, if any
            if (prefixes.isEmpty() || !prefix.startsWith(prefixes.getLast())) {
                prefixes.add(prefix);
            }
        }
        return prefixes;
    }

    /**
     * Whether the file at {@code path} lies under one of {@code prefixes}, as {@link #prefixes} made them. Of prefixes
     * none of which lies under another, only the greatest one not after the path can hold it: a binary search.
     */
    static boolean matches(List<String> prefixes, String path)
    {
        String key = sameStore(path);
        int index = Collections.binarySearch(prefixes, key);
        int floor = index >= 0 ? index : -index - 2;
        return floor >= 0 && key.startsWith(prefixes.get(floor));
    }

    /** Whether {@code location} lies under {@code parent} (or is it). */
    static boolean isUnder(String location, String parent)
    {
        return matches(prefixes(List.of(parent)), location.endsWith("/") ? location : location + "/");
    }

    // one name for each store: the S3 schemes become s3://
    private static String sameStore(String location)
    {
        for (String scheme : S3_SCHEMES) {
            if (location.regionMatches(true, 0, scheme, 0, scheme.length())) {
                return "s3://" + location.substring(scheme.length());
            }
        }
        return location;
    }
}
