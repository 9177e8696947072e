package io.overdrive.cache.connector;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * Versions stamped into the jar at build time (Maven resource filtering of {@code build.properties}).
 */
public record OverdriveBuildInfo(String trinoSpiVersion, String overdriveVersion)
{
    private static final String RESOURCE = "/io/overdrive/cache/build.properties";

    public OverdriveBuildInfo
    {
        requireNonNull(trinoSpiVersion, "trinoSpiVersion is null");
        requireNonNull(overdriveVersion, "overdriveVersion is null");
    }

    public static OverdriveBuildInfo load()
    {
        Properties properties = new Properties();
        try (InputStream input = OverdriveBuildInfo.class.getResourceAsStream(RESOURCE)) {
            checkState(input != null, "%s is missing from the Overdrive plugin jar", RESOURCE);
            properties.load(input);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String spiVersion = properties.getProperty("trino.spi.version", "");
        checkState(!spiVersion.isBlank() && !spiVersion.contains("${"), "%s was not filtered at build time", RESOURCE);
        return new OverdriveBuildInfo(spiVersion.strip(), properties.getProperty("overdrive.version", "unknown").strip());
    }
}
