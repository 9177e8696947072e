package io.overdrive.cache;

import com.google.inject.Binder;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.overdrive.cache.placement.NodeSelectionModule;

/**
 * Overdrive's features for one {@code overdrive_hive} catalog, installed after every Hive module. Installed through
 * {@link #install} so that each feature module reads its own {@code @Config} classes.
 */
public class OverdriveModule
        extends AbstractConfigurationAwareModule
{
    private final boolean coordinator;

    public OverdriveModule(boolean coordinator)
    {
        this.coordinator = coordinator;
    }

    @Override
    protected void setup(Binder binder)
    {
        install(new PageCacheModule(coordinator));
        install(new NodeSelectionModule(coordinator));
    }
}
