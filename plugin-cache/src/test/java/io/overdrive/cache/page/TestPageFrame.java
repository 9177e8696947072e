package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TestPageFrame
{
    @Test
    void roundTrip()
    {
        Random random = new Random(7);
        for (int length : new int[] {0, 1, 100, 4096, 1 << 20}) {
            byte[] page = new byte[length];
            random.nextBytes(page);
            byte[] frame = PageFrame.encode(ByteBuffer.wrap(page));
            assertThat(frame).hasSize(length + PageFrame.TRAILER_SIZE);
            assertThat(PageFrame.verify(frame, frame.length)).isEqualTo(length);
            assertThat(java.util.Arrays.copyOf(frame, length)).isEqualTo(page);
        }
    }

    @Test
    void everySingleBitFlipIsDetected()
    {
        byte[] page = new byte[300];
        new Random(1).nextBytes(page);
        byte[] frame = PageFrame.encode(ByteBuffer.wrap(page));
        for (int bit = 0; bit < frame.length * 8; bit++) {
            byte[] corrupt = frame.clone();
            corrupt[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThat(PageFrame.verify(corrupt, corrupt.length)).as("bit %s", bit).isEqualTo(-1);
        }
    }

    @Test
    void truncatedFramesAreRejected()
    {
        byte[] page = new byte[5000];
        new Random(2).nextBytes(page);
        byte[] frame = PageFrame.encode(ByteBuffer.wrap(page));
        for (int length = 0; length < frame.length; length += 97) {
            assertThat(PageFrame.verify(frame, length)).as("length %s", length).isEqualTo(-1);
        }
        // a page written only partly, with zeros where the rest should be (a torn write)
        byte[] torn = frame.clone();
        java.util.Arrays.fill(torn, 2048, torn.length, (byte) 0);
        assertThat(PageFrame.verify(torn, torn.length)).isEqualTo(-1);
    }

    @Test
    void encodeDoesNotConsumeTheCallersBuffer()
    {
        ByteBuffer page = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}, 1, 3);
        PageFrame.encode(page);
        assertThat(page.position()).isEqualTo(1);
        assertThat(page.remaining()).isEqualTo(3);
    }
}
