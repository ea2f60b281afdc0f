// The slots page reads share: never more at once than there are slots, every read served in turn,
// and a failed read frees its slot.
import { describe, expect, it } from 'vitest';
import { ReadSlots } from './read-slots.ts';

describe('ReadSlots', () => {
  it('runs at most its slots at once, in the order asked, and a failure frees its slot', async () => {
    const slots = new ReadSlots(3);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const reads = Array.from({ length: 20 }, (_, i) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        order.push(i);
        await new Promise((r) => setImmediate(r));
        running--;
        if (i % 5 === 0) throw new Error(`read ${i} failed`);
        return i;
      }),
    );
    const settled = await Promise.allSettled(reads);
    expect(most).toBe(3);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(settled.filter((s) => s.status === 'rejected')).toHaveLength(4);
    expect(await slots.run(async () => 'after')).toBe('after');
  });
});
