// A freshly started service answers 503 until its indexer has looked at the index and the node once.
export async function untilServing(url: string, headers: Record<string, string>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await fetch(url, { headers });
    await answer.arrayBuffer();
    if (answer.status !== 503) return;
    if (Date.now() > deadline) throw new Error(`${url} still answers 503 (index not ready) after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
