import type * as grpc from '@grpc/grpc-js';

/** How a streamed listing ended. */
export interface StreamOutcome {
  sent: number;
  /** The client cancelled (or went away) before the last item. */
  cancelled: boolean;
}

/** Resolves on 'drain', or when the call is cancelled or closed (a cancelled call never drains). */
function drainedOrGone(call: grpc.ServerWritableStream<unknown, unknown>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'cancelled', 'close', 'error']) call.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'cancelled', 'close', 'error']) call.on(event, done);
  });
}

/**
 * Writes items `0 … count-1` (built one at a time by `itemAt`) and ends the call, waiting for
 * 'drain' whenever `write` says the buffer is full: a slow client holds the server at a few
 * messages in memory (HTTP/2 flow control stops the writes), whatever the fleet's size.
 */
export async function streamAll<T>(
  call: grpc.ServerWritableStream<unknown, T>,
  count: number,
  itemAt: (index: number) => T,
): Promise<StreamOutcome> {
  let cancelled = call.cancelled;
  const onCancelled = () => {
    cancelled = true;
  };
  call.on('cancelled', onCancelled);
  try {
    for (let i = 0; i < count; i++) {
      if (cancelled || call.destroyed) return { sent: i, cancelled: true };
      if (!call.write(itemAt(i))) await drainedOrGone(call);
    }
    call.end();
    return { sent: count, cancelled: false };
  } finally {
    call.off('cancelled', onCancelled);
  }
}
