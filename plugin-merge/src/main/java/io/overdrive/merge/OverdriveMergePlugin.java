package io.overdrive.merge;

import io.trino.spi.Plugin;

/**
 * Entry point Trino finds in {@code plugin/overdrive-merge/}. It registers nothing with Trino yet: this release ships
 * the merge engine as a library, and the shards connector that puts it to work registers here when it lands.
 */
public class OverdriveMergePlugin
        implements Plugin
{
}
