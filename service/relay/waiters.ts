// Long polls waiting on a room in this process: a message posted here wakes them at once; one
// posted through another instance (PostgreSQL) is found when the waiter looks again.
export class RoomWaiters {
  private readonly byRoom = new Map<string, Set<() => void>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Resolves when the room gets a message here, after `ms`, or when `gone` aborts. */
  wait(room: string, ms: number, gone: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.byRoom.get(room);
      if (!set) this.byRoom.set(room, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        gone.removeEventListener('abort', done);
        if (set.delete(done)) this.count--;
        if (set.size === 0 && this.byRoom.get(room) === set) this.byRoom.delete(room);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      gone.addEventListener('abort', done);
      set.add(done);
      this.count++;
    });
  }

  wake(room: string): void {
    for (const done of [...(this.byRoom.get(room) ?? [])]) done();
  }
}
