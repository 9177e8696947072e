package io.overdrive.cache.peer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Optional;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * Signs and checks peer requests with the catalog's shared secret: the {@code Authorization} header carries the time
 * of the request and an HMAC-SHA256 of that time and the request's path and query, so the secret never travels, a
 * request cannot be altered, and an old one is refused ({@link #MAX_SKEW_MILLIS}). The secret only authenticates:
 * the bytes travel in clear (a page a worker serves is data any of the catalog's queries may read).
 */
final class PeerAuth
{
    static final String SCHEME = "Overdrive-HMAC-SHA256 ";
    // how far apart two nodes' clocks and a request's travel may be
    static final long MAX_SKEW_MILLIS = 5 * 60 * 1000;
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final InstantSource clock;

    PeerAuth(String secret, InstantSource clock)
    {
        this.key = new SecretKeySpec(requireNonNull(secret, "secret is null").getBytes(UTF_8), ALGORITHM);
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The {@code Authorization} header's value for a request of {@code pathAndQuery}. */
    String sign(String pathAndQuery)
    {
        long now = clock.millis();
        return SCHEME + now + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(now, pathAndQuery));
    }

    /** Why a request of {@code pathAndQuery} with this {@code Authorization} header is refused; empty when it is not. */
    Optional<String> refusal(String authorization, String pathAndQuery)
    {
        if (authorization == null || !authorization.startsWith(SCHEME)) {
            return Optional.of("not signed");
        }
        String token = authorization.substring(SCHEME.length());
        int colon = token.indexOf(':');
        long time;
        byte[] signature;
        try {
            time = Long.parseLong(token.substring(0, Math.max(colon, 0)));
            signature = Base64.getUrlDecoder().decode(token.substring(colon + 1));
        }
        catch (IllegalArgumentException e) {
            return Optional.of("malformed signature");
        }
        if (!MessageDigest.isEqual(signature, mac(time, pathAndQuery))) {
            return Optional.of("signed with another secret");
        }
        if (Math.abs(clock.millis() - time) > MAX_SKEW_MILLIS) {
            return Optional.of("signed too long ago (or the nodes' clocks differ by more than 5 minutes)");
        }
        return Optional.empty();
    }

    private byte[] mac(long time, String pathAndQuery)
    {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.update(Long.toString(time).getBytes(UTF_8));
            mac.update((byte) '\n');
            return mac.doFinal(pathAndQuery.getBytes(UTF_8));
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JVM", e);
        }
    }
}
