package io.overdrive.it.s3;

import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.options.GetOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Properties;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's counts over jclouds' file system provider, as the server runs it: a ranged GET read to its end counts
 * exactly its bytes; one whose client goes away counts what was sent until then, not its whole range.
 */
class TestObjectStoreBehaviour
{
    @TempDir
    Path directory;

    @Test
    void countsTheObjectBytesAsTheyAreSent()
            throws Exception
    {
        Properties overrides = new Properties();
        overrides.setProperty("jclouds.filesystem.basedir", directory.toString());
        try (BlobStoreContext context = ContextBuilder.newBuilder("filesystem").overrides(overrides).buildView(BlobStoreContext.class)) {
            ObjectStoreBehaviour store = new ObjectStoreBehaviour(context.getBlobStore());
            store.createContainerInLocation(null, "bucket");
            byte[] data = new byte[1 << 20];
            new Random(1).nextBytes(data);
            store.putBlob("bucket", store.blobBuilder("object").payload(data).build());

            Blob whole = store.getBlob("bucket", "object", GetOptions.Builder.range(1000, 300_999));
            try (InputStream in = whole.getPayload().openStream()) {
                assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 1000, 301_000));
            }
            assertThat(store.getRequests()).isEqualTo(1);
            assertThat(store.getBytes()).isEqualTo(300_000);

            // the client takes 100,000 bytes of a 1,000,000-byte range and closes its connection
            Blob cut = store.getBlob("bucket", "object", GetOptions.Builder.range(0, 999_999));
            try (InputStream in = cut.getPayload().openStream()) {
                assertThat(in.readNBytes(100_000)).isEqualTo(Arrays.copyOf(data, 100_000));
            }
            assertThat(store.getRequests()).isEqualTo(2);
            assertThat(store.getBytes()).isEqualTo(400_000);

            // with a bandwidth, the same counts
            store.setBandwidth(100L << 20);
            try (InputStream in = store.getBlob("bucket", "object", GetOptions.Builder.range(0, 99_999)).getPayload().openStream()) {
                assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOf(data, 100_000));
            }
            assertThat(store.getBytes()).isEqualTo(500_000);

            // distinct bytes: [1000, 301000) and [0, 100000) twice are 301,000 distinct of the 500,000 sent
            assertThat(store.distinctBytes()).isEqualTo(301_000);
            // the last 50,000 bytes of the object, read to the end, then 10 of the same again from another start
            try (InputStream in = store.getBlob("bucket", "object", new GetOptions().tail(50_000)).getPayload().openStream()) {
                assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, data.length - 50_000, data.length));
            }
            try (InputStream in = store.getBlob("bucket", "object", new GetOptions().startAt(data.length - 10)).getPayload().openStream()) {
                assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, data.length - 10, data.length));
            }
            assertThat(store.getBytes()).isEqualTo(550_010);
            assertThat(store.distinctBytes()).isEqualTo(351_000);
            store.resetDistinct();
            assertThat(store.distinctBytes()).isZero();
            // a whole object
            try (InputStream in = store.getBlob("bucket", "object").getPayload().openStream()) {
                assertThat(in.readAllBytes()).isEqualTo(data);
            }
            assertThat(store.distinctBytes()).isEqualTo(data.length);
        }
    }

    @Test
    void slowGetsCountOnlyTheGivenKeysFromWhenTheyAreSet()
            throws Exception
    {
        Properties overrides = new Properties();
        overrides.setProperty("jclouds.filesystem.basedir", directory.toString());
        try (BlobStoreContext context = ContextBuilder.newBuilder("filesystem").overrides(overrides).buildView(BlobStoreContext.class)) {
            ObjectStoreBehaviour store = new ObjectStoreBehaviour(context.getBlobStore());
            store.createContainerInLocation(null, "bucket");
            for (String key : new String[] {"table/data", "table/.schema"}) {
                store.putBlob("bucket", store.blobBuilder(key).payload(new byte[] {1, 2, 3}).build());
            }
            // GETs sent before the setting do not count
            for (int i = 0; i < 3; i++) {
                store.getBlob("bucket", "table/data");
            }
            store.setSlowGet(3, 1500, "/data");
            Random random = new Random(7);
            int dataGets = 0;
            for (int i = 0; i < 12; i++) {
                // other keys never wait and never move the count, however many are read in between
                for (int other = random.nextInt(3); other > 0; other--) {
                    assertThat(millisToGet(store, "table/.schema")).as("other key").isLessThan(1000);
                }
                dataGets++;
                long millis = millisToGet(store, "table/data");
                if (dataGets % 3 == 0) {
                    assertThat(millis).as("data GET %s", dataGets).isGreaterThanOrEqualTo(1500);
                }
                else {
                    assertThat(millis).as("data GET %s", dataGets).isLessThan(1000);
                }
            }
            store.setSlowGet(0, 0, "");
            assertThat(millisToGet(store, "table/data")).as("off").isLessThan(1000);
        }
    }

    private static long millisToGet(ObjectStoreBehaviour store, String key)
            throws Exception
    {
        long start = System.nanoTime();
        try (InputStream in = store.getBlob("bucket", key).getPayload().openStream()) {
            assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }
}
