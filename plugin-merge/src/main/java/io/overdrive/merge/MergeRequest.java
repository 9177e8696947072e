package io.overdrive.merge;

import com.google.common.collect.ImmutableList;
import io.overdrive.merge.combine.CombineSpec;
import io.overdrive.merge.config.MergeParallelism;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What to merge: sorted inputs with a common layout ({@code types}), the sort keys, an optional combine step, an
 * optional row limit (applied to the output, after combining), the merge's admission priority (higher runs first) and
 * an optional per-merge parallelism that overrides {@code merge.parallelism}.
 */
public record MergeRequest(
        List<Type> types,
        List<SortKey> sortKeys,
        List<SortedPageSource> sources,
        Optional<CombineSpec> combine,
        OptionalLong limit,
        int priority,
        Optional<MergeParallelism> parallelism)
{
    public MergeRequest
    {
        types = ImmutableList.copyOf(requireNonNull(types, "types is null"));
        sortKeys = ImmutableList.copyOf(requireNonNull(sortKeys, "sortKeys is null"));
        sources = ImmutableList.copyOf(requireNonNull(sources, "sources is null"));
        requireNonNull(combine, "combine is null");
        requireNonNull(limit, "limit is null");
        requireNonNull(parallelism, "parallelism is null");
        checkArgument(!sortKeys.isEmpty(), "a merge needs at least one sort key");
        for (SortKey key : sortKeys) {
            checkArgument(key.channel() < types.size(), "sort key channel %s is outside the %s input channels", key.channel(), types.size());
        }
        limit.ifPresent(value -> checkArgument(value >= 0, "limit must not be negative: %s", value));
    }

    public static Builder builder(List<Type> types, List<SortKey> sortKeys)
    {
        return new Builder(types, sortKeys);
    }

    public static final class Builder
    {
        private final List<Type> types;
        private final List<SortKey> sortKeys;
        private final ImmutableList.Builder<SortedPageSource> sources = ImmutableList.builder();
        private Optional<CombineSpec> combine = Optional.empty();
        private OptionalLong limit = OptionalLong.empty();
        private int priority;
        private Optional<MergeParallelism> parallelism = Optional.empty();

        private Builder(List<Type> types, List<SortKey> sortKeys)
        {
            this.types = requireNonNull(types, "types is null");
            this.sortKeys = requireNonNull(sortKeys, "sortKeys is null");
        }

        public Builder source(SortedPageSource source)
        {
            sources.add(source);
            return this;
        }

        public Builder sources(List<? extends SortedPageSource> sources)
        {
            this.sources.addAll(sources);
            return this;
        }

        public Builder combine(CombineSpec combine)
        {
            this.combine = Optional.of(combine);
            return this;
        }

        public Builder limit(long limit)
        {
            this.limit = OptionalLong.of(limit);
            return this;
        }

        public Builder priority(int priority)
        {
            this.priority = priority;
            return this;
        }

        public Builder parallelism(MergeParallelism parallelism)
        {
            this.parallelism = Optional.of(parallelism);
            return this;
        }

        public MergeRequest build()
        {
            return new MergeRequest(types, sortKeys, sources.build(), combine, limit, priority, parallelism);
        }
    }
}
