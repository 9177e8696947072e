package io.overdrive.merge.shards;

import io.trino.spi.connector.ConnectorContext;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestShardsConnectorFactory
{
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
        assertThatThrownBy(() -> new ShardsConnectorFactory().create("shards", Map.of("shards.uris", "http://a:8080/tpch"), otherServer))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Trino SPI version 482 does not match the version 483 connector overdrive_shards was compiled for");
    }
}
