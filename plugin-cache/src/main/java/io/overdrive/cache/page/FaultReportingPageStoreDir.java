package io.overdrive.cache.page;

import alluxio.client.file.cache.PageId;
import alluxio.client.file.cache.PageInfo;
import alluxio.client.file.cache.PageStore;
import alluxio.client.file.cache.evictor.CacheEvictor;
import alluxio.client.file.cache.store.LocalPageStore;
import alluxio.client.file.cache.store.LocalPageStoreDir;
import alluxio.client.file.cache.store.PageStoreOptions;
import alluxio.client.quota.CacheScope;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * Alluxio's local page store directory, serving its pages through {@link FaultReportingPageStore}. Alluxio resets a
 * directory it cannot restore (a new one, for example) by opening a new store: the new store is wrapped as well.
 * <p>
 * Alluxio's own restore (the {@link #scanPages} while its cache manager is created, see {@link #opening}) finds nothing:
 * {@link PageRestore} restores the pages afterwards, in the background, with their file's metadata. Later scans (the
 * TTL sweep, invalidation) list the pages on disk, aged by their files' modification time, the time they were written.
 */
final class FaultReportingPageStoreDir
        extends LocalPageStoreDir
{
    private final FaultReportingPageStore store;
    private final Pattern pagePattern;
    private final AtomicBoolean opening = new AtomicBoolean();

    FaultReportingPageStoreDir(PageStoreOptions options, FaultReportingPageStore store, CacheEvictor evictor)
    {
        super(options, store.disk(), evictor);
        this.store = requireNonNull(store, "store is null");
        // root/page size/bucket/file id/page index, as Alluxio's LocalPageStore lays pages out
        this.pagePattern = Pattern.compile("%s/%d/(\\d+)/([^/]+)/(\\d+)".formatted(Pattern.quote(options.getRootDir().toString()), options.getPageSize()));
    }

    /** Set while the cache manager is created: its restore must find no pages, since {@link PageRestore} restores them. */
    void opening(boolean opening)
    {
        this.opening.set(opening);
    }

    @Override
    public PageStore getPageStore()
    {
        return store;
    }

    @Override
    public void reset()
            throws IOException
    {
        super.reset();
        store.replaceDelegate(super.getPageStore());
    }

    @Override
    public void scanPages(Consumer<Optional<PageInfo>> consumer)
            throws IOException
    {
        if (opening.get()) {
            return;
        }
        try (Stream<Path> files = Files.walk(getRootPath())) {
            files.filter(Files::isRegularFile).forEach(file -> pageId(file).flatMap(pageId -> pageInfo(pageId, file)).ifPresent(info -> consumer.accept(Optional.of(info))));
        }
    }

    /** The page a file under this directory holds, or empty when it is not a page file of this page size. */
    Optional<PageId> pageId(Path file)
    {
        Matcher matcher = pagePattern.matcher(file.toString());
        if (!matcher.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new PageId(matcher.group(2), Long.parseLong(matcher.group(3))));
        }
        catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Where the page's file is (whether or not it exists); empty if the store does not keep pages in local files. */
    Optional<Path> pagePath(PageId pageId)
    {
        if (store.disk() instanceof LocalPageStore disk) {
            return Optional.of(disk.getPagePath(pageId, false));
        }
        return Optional.empty();
    }

    private Optional<PageInfo> pageInfo(PageId pageId, Path file)
    {
        try {
            return Optional.of(new PageInfo(pageId, Files.size(file), CacheScope.GLOBAL, this, Files.getLastModifiedTime(file).toMillis()));
        }
        catch (IOException e) {
            // deleted since it was listed, or unreadable: left out of this scan (the TTL sweep must not stop on it)
            return Optional.empty();
        }
    }
}
