package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Random;

import static io.overdrive.cache.page.PageFrame.CHUNK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPageFrame
{
    private static final int[] LENGTHS = {0, 1, 100, 4096, CHUNK_SIZE - 1, CHUNK_SIZE, CHUNK_SIZE + 1, 3 * CHUNK_SIZE + 17, 1 << 20};

    @Test
    void roundTrip()
    {
        Random random = new Random(7);
        for (int length : LENGTHS) {
            byte[] page = new byte[length];
            random.nextBytes(page);
            byte[] frame = PageFrame.encode(ByteBuffer.wrap(page));
            assertThat(frame).hasSize(PageFrame.frameLength(length));
            assertThat(frame).hasSize(length + PageFrame.chunks(length) * 4 + 12);
            assertThat(PageFrame.pageLength(frame.length)).isEqualTo(length);
            assertThat(PageFrame.verify(frame, frame.length)).isEqualTo(length);
            assertThat(PageFrame.decode(frame, frame.length)).isEqualTo(page);
        }
    }

    @Test
    void framesBuiltInAReusedDirectBufferAreTheHeapFrames()
    {
        // one writing thread's buffer, reused for pages of every length, whole and partial, in a random order: each frame
        // must be exactly the heap one, whatever the buffer held before (a longer page's bytes, another page's chunks)
        Random random = new Random(23);
        ByteBuffer reused = ByteBuffer.allocateDirect(PageFrame.frameLength(1 << 20));
        for (int round = 0; round < 200; round++) {
            int length = random.nextBoolean() ? LENGTHS[random.nextInt(LENGTHS.length)] : random.nextInt(1 << 20);
            byte[] page = new byte[length];
            random.nextBytes(page);
            byte[] expected;
            ByteBuffer frame;
            if (random.nextBoolean()) {
                // the page in the middle of a larger buffer, as a fetch of several pages hands it over
                int before = random.nextInt(100);
                byte[] fetched = new byte[before + length + random.nextInt(100)];
                random.nextBytes(fetched);
                System.arraycopy(page, 0, fetched, before, length);
                ByteBuffer source = ByteBuffer.wrap(fetched, before, length);
                expected = PageFrame.encode(source);
                frame = PageFrame.encode(source, reused);
                assertThat(source.position()).as("the page is left as it was").isEqualTo(before);
                assertThat(source.remaining()).isEqualTo(length);
            }
            else {
                BitSet present = new BitSet();
                for (int chunk = 0; chunk < PageFrame.chunks(length); chunk++) {
                    if (random.nextBoolean()) {
                        present.set(chunk);
                    }
                }
                expected = PageFrame.encodePartial(page, length, present);
                frame = PageFrame.encodePartial(page, length, present, reused);
            }
            assertThat(frame).isSameAs(reused);
            assertThat(frame.position()).isZero();
            byte[] written = new byte[frame.remaining()];
            frame.duplicate().get(written);
            assertThat(written).as("round %s, length %s", round, length).isEqualTo(expected);
            assertThat(PageFrame.verify(written, written.length)).isEqualTo(length);
        }
    }

    @Test
    void framesUpToTheBoundReuseTheThreadsDirectBuffer()
    {
        ByteBuffer frame = PageStoreDirectory.frameBuffer(1 << 20);
        assertThat(frame.isDirect()).isTrue();
        assertThat(frame.capacity()).isBetween(PageFrame.frameLength(1 << 20), PageStoreDirectory.MAX_POOLED_FRAME_BYTES);
        assertThat(PageStoreDirectory.frameBuffer(1)).isSameAs(frame);
        assertThat(PageStoreDirectory.frameBuffer((1 << 20) - 1)).isSameAs(frame);
        // above the bound: a heap buffer of its own each time, the thread's buffer kept
        ByteBuffer large = PageStoreDirectory.frameBuffer(4 << 20);
        assertThat(large.isDirect()).isFalse();
        assertThat(large.capacity()).isEqualTo(PageFrame.frameLength(4 << 20));
        assertThat(PageStoreDirectory.frameBuffer(4 << 20)).isNotSameAs(large);
        assertThat(PageStoreDirectory.frameBuffer(1 << 20)).isSameAs(frame);
        // another thread has a buffer of its own
        ByteBuffer[] other = new ByteBuffer[1];
        Thread thread = Thread.ofPlatform().start(() -> other[0] = PageStoreDirectory.frameBuffer(1 << 20));
        assertThat(joined(thread)).isTrue();
        assertThat(other[0]).isNotSameAs(frame);
    }

    private static boolean joined(Thread thread)
    {
        try {
            return thread.join(Duration.ofMinutes(1));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    @Test
    void aFrameLargerThanTheBufferIsRefused()
    {
        ByteBuffer small = ByteBuffer.allocateDirect(PageFrame.frameLength(CHUNK_SIZE));
        assertThatThrownBy(() -> PageFrame.encode(ByteBuffer.wrap(new byte[CHUNK_SIZE + 1]), small))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pageLengthInvertsFrameLength()
    {
        for (int length = 0; length < 5 * CHUNK_SIZE; length++) {
            assertThat(PageFrame.pageLength(PageFrame.frameLength(length))).as("length %s", length).isEqualTo(length);
        }
        assertThat(PageFrame.pageLength(PageFrame.frameLength(64 << 20))).isEqualTo(64 << 20);
    }

    @Test
    void lastChunkOfTheLargestPageStartsWithinThePageSize()
    {
        // Alluxio refuses a read whose offset is past the configured page size (cache.page-size is at most 64 MB)
        int largest = 64 << 20;
        assertThat(PageFrame.chunkStart(PageFrame.chunks(largest) - 1)).isLessThanOrEqualTo(largest);
    }

    @Test
    void everySingleBitFlipIsDetected()
    {
        byte[] page = new byte[CHUNK_SIZE + 300];
        new Random(1).nextBytes(page);
        byte[] frame = PageFrame.encode(ByteBuffer.wrap(page));
        for (int bit = 0; bit < frame.length * 8; bit += (bit / 8 > 200 && bit / 8 < CHUNK_SIZE - 200) ? 61 : 1) {
            byte[] corrupt = frame.clone();
            corrupt[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThat(PageFrame.verify(corrupt, corrupt.length)).as("bit %s", bit).isEqualTo(-1);
        }
    }

    @Test
    void rangedReadsVerifyOnlyTheChunksTheyCover()
    {
        Random random = new Random(3);
        int length = 4 * CHUNK_SIZE - 1000;
        byte[] page = new byte[length];
        random.nextBytes(page);
        byte[] frame = PageFrame.encode(ByteBuffer.wrap(page));
        // damage in chunk 2
        byte[] damaged = frame.clone();
        damaged[PageFrame.chunkStart(2) + 5] ^= 1;
        for (int i = 0; i < 2_000; i++) {
            int offset = random.nextInt(length);
            int bytes = 1 + random.nextInt(length - offset);
            int firstChunk = offset / CHUNK_SIZE;
            int lastChunk = (offset + bytes - 1) / CHUNK_SIZE;
            int spanStart = PageFrame.chunkStart(firstChunk);
            int spanEnd = PageFrame.chunkEnd(length, lastChunk);
            byte[] target = new byte[bytes + 2];
            assertThat(PageFrame.copyVerified(ByteBuffer.wrap(frame, spanStart, spanEnd - spanStart), length, firstChunk, offset, bytes, target, 1)).isEqualTo(PageFrame.VERIFIED);
            assertThat(Arrays.copyOfRange(target, 1, 1 + bytes)).isEqualTo(Arrays.copyOfRange(page, offset, offset + bytes));

            byte[] fresh = new byte[bytes + 2];
            boolean verified = PageFrame.copyVerified(ByteBuffer.wrap(damaged, spanStart, spanEnd - spanStart), length, firstChunk, offset, bytes, fresh, 1) == PageFrame.VERIFIED;
            assertThat(verified).as("%s bytes from %s", bytes, offset).isEqualTo(firstChunk > 2 || lastChunk < 2);
            if (!verified) {
                assertThat(fresh).as("nothing copied").containsOnly(0);
            }
        }
    }

    @Test
    void framesOfTheEarlierFormatAreRejected()
    {
        // the page's bytes, their CRC32C, their length and "ODPG"
        byte[] page = new byte[5000];
        new Random(4).nextBytes(page);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(page);
        ByteBuffer old = ByteBuffer.allocate(page.length + 12).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        old.put(page).putInt((int) crc.getValue()).putInt(page.length).putInt(0x4F445047);
        assertThat(PageFrame.verify(old.array(), old.capacity())).isEqualTo(-1);
    }

    @Test
    void truncatedFramesAreRejected()
    {
        byte[] page = new byte[CHUNK_SIZE + 5000];
        new Random(2).nextBytes(page);
        byte[] frame = PageFrame.encode(ByteBuffer.wrap(page));
        for (int length = 0; length < frame.length; length += 97) {
            assertThat(PageFrame.verify(frame, length)).as("length %s", length).isEqualTo(-1);
        }
        // a page written only partly, with zeros where the rest should be (a torn write)
        byte[] torn = frame.clone();
        Arrays.fill(torn, 2048, torn.length, (byte) 0);
        assertThat(PageFrame.verify(torn, torn.length)).isEqualTo(-1);
    }

    @Test
    void encodeDoesNotConsumeTheCallersBuffer()
    {
        ByteBuffer page = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}, 1, 3);
        byte[] frame = PageFrame.encode(page);
        assertThat(page.position()).isEqualTo(1);
        assertThat(page.remaining()).isEqualTo(3);
        assertThat(PageFrame.decode(frame, frame.length)).containsExactly(2, 3, 4);
    }

    @Test
    void partialPagesServeTheirChunksAndMissTheOthers()
    {
        Random random = new Random(11);
        for (int length : new int[] {1, CHUNK_SIZE, CHUNK_SIZE + 1, 5 * CHUNK_SIZE - 300, 1 << 20}) {
            byte[] page = new byte[length];
            random.nextBytes(page);
            int chunks = PageFrame.chunks(length);
            for (int round = 0; round < 20; round++) {
                BitSet present = new BitSet();
                for (int chunk = 0; chunk < chunks; chunk++) {
                    if (random.nextBoolean()) {
                        present.set(chunk);
                    }
                }
                // the bytes of absent chunks are never looked at
                byte[] source = page.clone();
                for (int chunk = present.nextClearBit(0); chunk < chunks; chunk = present.nextClearBit(chunk + 1)) {
                    Arrays.fill(source, chunk * CHUNK_SIZE, Math.min(length, (chunk + 1) * CHUNK_SIZE), (byte) 0x5A);
                }
                byte[] frame = PageFrame.encodePartial(source, length, present);
                assertThat(frame.length).isEqualTo(PageFrame.frameLength(length));
                assertThat(PageFrame.verify(frame, frame.length)).as("a partial page is intact").isEqualTo(length);
                byte[] decoded = new byte[length];
                assertThat(PageFrame.decodePartial(frame, frame.length, length, decoded)).isEqualTo(present);
                assertThat(PageFrame.decode(frame, frame.length)).as("not a whole page").isEqualTo(present.cardinality() == chunks ? page : null);
                for (int i = 0; i < 50; i++) {
                    int offset = random.nextInt(length);
                    int bytes = 1 + random.nextInt(length - offset);
                    int firstChunk = offset / CHUNK_SIZE;
                    int lastChunk = (offset + bytes - 1) / CHUNK_SIZE;
                    int spanStart = PageFrame.chunkStart(firstChunk);
                    int spanEnd = PageFrame.chunkEnd(length, lastChunk);
                    byte[] target = new byte[bytes];
                    int result = PageFrame.copyVerified(ByteBuffer.wrap(frame, spanStart, spanEnd - spanStart), length, firstChunk, offset, bytes, target, 0);
                    boolean covered = present.nextClearBit(firstChunk) > lastChunk;
                    assertThat(result).isEqualTo(covered ? PageFrame.VERIFIED : PageFrame.ABSENT_CHUNK);
                    if (covered) {
                        assertThat(target).isEqualTo(Arrays.copyOfRange(page, offset, offset + bytes));
                    }
                    else {
                        assertThat(target).as("nothing copied").containsOnly(0);
                    }
                }
            }
        }
    }

    @Test
    void damageInAPartialPageIsDamageNotAbsence()
    {
        Random random = new Random(13);
        int length = 4 * CHUNK_SIZE;
        byte[] page = new byte[length];
        random.nextBytes(page);
        BitSet present = new BitSet();
        present.set(1);
        present.set(3);
        byte[] frame = PageFrame.encodePartial(page, length, present);
        // a flipped bit in an absent chunk's zeros or checksum, or in a present chunk, is damage
        for (int bit = 0; bit < (frame.length - PageFrame.TRAILER_SIZE) * 8; bit += 97) {
            byte[] damaged = frame.clone();
            damaged[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThat(PageFrame.verify(damaged, damaged.length)).as("bit %s", bit).isEqualTo(-1);
            assertThat(PageFrame.copyVerified(ByteBuffer.wrap(damaged, 0, damaged.length - PageFrame.TRAILER_SIZE), length, 0, 0, length, new byte[length], 0))
                    .as("bit %s", bit)
                    .isEqualTo(PageFrame.DAMAGED);
        }
    }
}
