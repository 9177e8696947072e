package io.overdrive.cache;

import com.google.inject.Binder;
import com.google.inject.Provider;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.airlift.configuration.ConfigurationFactory;
import io.overdrive.cache.page.PageCacheConfig;
import io.overdrive.cache.page.PageCacheStats;
import io.overdrive.cache.peer.PeerConfig;
import io.overdrive.cache.peer.PeerStats;
import io.overdrive.cache.scan.SharedScanConfig;
import io.overdrive.cache.scan.SharedScanStats;
import io.trino.filesystem.cache.TrinoFileSystemCache;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.spi.catalog.CatalogName;

import java.util.Map;
import java.util.Optional;

import static com.google.inject.Scopes.SINGLETON;
import static com.google.inject.multibindings.OptionalBinder.newOptionalBinder;
import static io.airlift.configuration.ConfigBinder.configBinder;
import static org.weakref.jmx.guice.ExportBinder.newExporter;

/**
 * Binds Overdrive's page cache into the Hive connector's file system seam ({@link TrinoFileSystemCache}) when
 * {@code cache.enabled=true} on a node that runs splits: every worker, and the coordinator when
 * {@code node-scheduler.include-coordinator=true}. A coordinator that runs no splits reads no data pages; it still
 * validates the {@code cache.*} properties, so a bad catalog fails there too. The cache is refused where storage is read
 * with each user's own credentials ({@link #refusePerUserCredentials}).
 */
public class PageCacheModule
        extends AbstractConfigurationAwareModule
{
    // Trino's own properties for storage read with each user's credentials (trino-hdfs, trino-filesystem-s3, -gcs)
    static final String HDFS_IMPERSONATION = "hive.hdfs.impersonation.enabled";
    static final String S3_SECURITY_MAPPING = "s3.security-mapping.enabled";
    static final String GCS_AUTH_TYPE = "gcs.auth-type";

    private final boolean runsSplits;

    public PageCacheModule(boolean runsSplits)
    {
        this.runsSplits = runsSplits;
    }

    @Override
    protected void setup(Binder binder)
    {
        configBinder(binder).bindConfig(PageCacheConfig.class);
        configBinder(binder).bindConfig(SharedScanConfig.class);
        configBinder(binder).bindConfig(PeerConfig.class);
        PageCacheConfig config = buildConfigObject(PageCacheConfig.class);
        SharedScanConfig sharedScans = buildConfigObject(SharedScanConfig.class);
        PeerConfig peers = buildConfigObject(PeerConfig.class);
        if (!config.isEnabled()) {
            if (peers.isEnabled()) {
                throw new IllegalArgumentException("%s turns peer reads on, which serve and read the page cache's pages, but cache.enabled=false: set cache.enabled=true, or remove %s".formatted(PeerConfig.SHARED_SECRET, PeerConfig.SHARED_SECRET));
            }
            return;
        }
        validate(config, sharedScans, peers);
        refusePerUserCredentials(config);
        // both caches would claim the one TrinoFileSystemCache seam. Trino's FileSystemModule binds FileSystemConfig, so
        // it is read here with Trino's own parsing but not bound a second time
        if (new ConfigurationFactory(getProperties()).build(FileSystemConfig.class).isCacheEnabled()) {
            throw new IllegalArgumentException("cache.enabled=true (Overdrive's page cache) and fs.cache.enabled=true (Trino's file system cache) cannot be used in one catalog: remove fs.cache.enabled, or set cache.enabled=false");
        }

        if (!runsSplits) {
            return;
        }
        binder.bind(PageCacheStats.class).in(SINGLETON);
        Provider<CatalogName> catalogName = binder.getProvider(CatalogName.class);
        newExporter(binder).export(PageCacheStats.class)
                .as(generator -> generator.generatedNameOf(PageCacheStats.class, catalogName.get().toString()));
        binder.bind(SharedScanStats.class).in(SINGLETON);
        binder.bind(PeerStats.class).in(SINGLETON);
        if (peers.isEnabled()) {
            newExporter(binder).export(PeerStats.class)
                    .as(generator -> generator.generatedNameOf(PeerStats.class, catalogName.get().toString()));
        }
        if (OverdriveFileSystemCache.isSharing(config, sharedScans)) {
            newExporter(binder).export(SharedScanStats.class)
                    .as(generator -> generator.generatedNameOf(SharedScanStats.class, catalogName.get().toString()));
        }
        newOptionalBinder(binder, TrinoFileSystemCache.class).setBinding().to(OverdriveFileSystemCache.class).in(SINGLETON);
    }

    /**
     * The cache is shared by every user of the catalog: a page cached by one user's read is served to the next user who
     * reads it, without asking storage. Where storage is read with each user's own credentials, that would serve a user
     * data that storage refuses them, so the cache is refused there. A dry run serves nothing and is allowed.
     */
    private void refusePerUserCredentials(PageCacheConfig config)
    {
        if (config.isDryRun()) {
            return;
        }
        perUserCredentials().ifPresent(property -> {
            throw new IllegalArgumentException(("cache.enabled=true (Overdrive's cache) cannot be used with %s: storage is read with each user's own credentials, " +
                    "but the cache serves what one user read to every user of the catalog, data that storage would refuse them included " +
                    "(the workers' page cache, shared scans, and the coordinator's memory tier cache.coordinator.*). " +
                    "Either set cache.enabled=false in this catalog (and cache the tables through a second catalog without per-user credentials), " +
                    "or remove %s so that storage is read with the catalog's own credentials. cache.dry-run=true, which serves nothing, is allowed").formatted(property, property.substring(0, property.indexOf('='))));
        });
    }

    // the property, with its value, that makes Trino read storage with the query user's own credentials
    private Optional<String> perUserCredentials()
    {
        Map<String, String> properties = getProperties();
        if (isTrue(properties.get(HDFS_IMPERSONATION))) {
            // HDFS accessed as the query's user (with SIMPLE or KERBEROS authentication)
            return Optional.of(HDFS_IMPERSONATION + "=true");
        }
        if (isTrue(properties.get(S3_SECURITY_MAPPING))) {
            // S3 credentials or IAM role chosen by the query's user, group or extra credentials
            return Optional.of(S3_SECURITY_MAPPING + "=true");
        }
        String gcsAuthType = properties.get(GCS_AUTH_TYPE);
        if (gcsAuthType != null && gcsAuthType.strip().replace('-', '_').equalsIgnoreCase("ACCESS_TOKEN")) {
            // the query's own OAuth token, passed as an extra credential
            return Optional.of(GCS_AUTH_TYPE + "=ACCESS_TOKEN");
        }
        return Optional.empty();
    }

    private static boolean isTrue(String value)
    {
        return value != null && Boolean.parseBoolean(value.strip());
    }

    private void validate(PageCacheConfig config, SharedScanConfig sharedScans, PeerConfig peers)
    {
        if (peers.isEnabled() && (config.isDryRun() || !sharedScans.isEnabled())) {
            throw new IllegalArgumentException("%s turns peer reads on, which read through shared scans and a cache that stores pages, but %s: remove %s, or remove %s".formatted(
                    PeerConfig.SHARED_SECRET,
                    config.isDryRun() ? "cache.dry-run=true" : SharedScanConfig.ENABLED + "=false",
                    config.isDryRun() ? "cache.dry-run" : SharedScanConfig.ENABLED,
                    PeerConfig.SHARED_SECRET));
        }
        if (!sharedScans.isEnabled() && getProperties().containsKey(SharedScanConfig.READ_AHEAD) && sharedScans.getReadAhead() > 0) {
            throw new IllegalArgumentException("%s=%s reads ahead for shared scans, which %s=false turns off: remove %s, or set %s=true".formatted(
                    SharedScanConfig.READ_AHEAD, sharedScans.getReadAhead(), SharedScanConfig.ENABLED, SharedScanConfig.READ_AHEAD, SharedScanConfig.ENABLED));
        }
        sharedScans.checkReadAheadFits(config.getPageSize());
    }
}
