package io.overdrive.it.placement;

/**
 * Which of a split's choices a policy placed it on.
 */
enum Choice
{
    /** The key's first choice. */
    PREFERRED,
    /** Another preferred host (the second one here). */
    ALTERNATIVE,
    /** Neither: the least loaded worker. Does not cache. */
    FALLBACK,
    /** A policy without preferences (NO_PREFERENCE). */
    ANY
}
