package io.overdrive.cache.connector;

import com.google.common.collect.ImmutableMap;
import io.overdrive.cache.OverdrivePlugin;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.testing.TestingConnectorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static com.google.common.collect.Iterables.getOnlyElement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestOverdriveHiveConnectorFactory
{
    @TempDir
    Path warehouse;

    @Test
    void pluginRegistersOverdriveHive()
    {
        ConnectorFactory factory = getOnlyElement(new OverdrivePlugin().getConnectorFactories());
        assertThat(factory.getName()).isEqualTo("overdrive_hive");
    }

    @Test
    void buildInfoIsStampedWithTheTrinoVersion()
    {
        // the SPI jar on the test classpath is the one the plugin was compiled against
        assertThat(OverdriveBuildInfo.load().trinoSpiVersion()).isEqualTo(new ConnectorContext() {}.getSpiVersion());
    }

    @Test
    void createsHiveConnectorWithPlainHiveProperties()
    {
        Connector connector = new OverdriveHiveConnectorFactory().create("lake", hiveProperties(), new TestingConnectorContext());
        try {
            assertThat(connector.getClass().getName()).isEqualTo("io.trino.plugin.hive.HiveConnector");
            assertThat(connector.getSessionProperties()).isNotEmpty();
        }
        finally {
            connector.shutdown();
        }
    }

    @Test
    void refusesServerWithOtherSpiVersion()
    {
        ConnectorContext otherServer = new ConnectorContext()
        {
            @Override
            public String getSpiVersion()
            {
                return "482";
            }
        };
        String builtFor = OverdriveBuildInfo.load().trinoSpiVersion();
        assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", hiveProperties(), otherServer))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("built for Trino SPI version " + builtFor)
                .hasMessageContaining("runs Trino SPI version 482");
    }

    @Test
    void unknownPropertyFailsNamingIt()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .putAll(hiveProperties())
                .put("overdrive.no-such-property", "true")
                .buildOrThrow();
        assertThatThrownBy(() -> new OverdriveHiveConnectorFactory().create("lake", properties, new TestingConnectorContext()))
                .hasMessageContaining("overdrive.no-such-property")
                .hasMessageContaining("was not used");
    }

    private Map<String, String> hiveProperties()
    {
        return ImmutableMap.of(
                "hive.metastore", "file",
                "hive.metastore.catalog.dir", warehouse.toUri().toString(),
                "fs.local.enabled", "true",
                "local.location", warehouse.toString());
    }
}
