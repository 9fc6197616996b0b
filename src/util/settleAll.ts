/**
 * Promise.all that waits for every promise before it rejects: when one task throws, the others still
 * run to their end, so none is left writing after the caller moves on (closes its logs).
 */
export async function settleAll<T>(work: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  const thrown = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (thrown) throw thrown.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}
