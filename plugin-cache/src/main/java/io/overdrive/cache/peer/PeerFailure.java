package io.overdrive.cache.peer;

/** Why a peer read went to storage although the peer was asked. */
enum PeerFailure
{
    TIMEOUT,
    CONNECTION,
    CHECKSUM,
    REFUSED,
    BUSY,
}
