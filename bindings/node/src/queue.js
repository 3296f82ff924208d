// SerialQueue runs async tasks one at a time, in the order they were added.
// An Extism JS plugin must never see overlapping calls: @extism/extism
// 2.0.0-rc13 hands the second call's output to both, and nothing in 1.0.3
// promises otherwise, so every call on one plugin goes through its queue.
export class SerialQueue {
  #tail = Promise.resolve();

  /** run starts task once every earlier task has settled, and returns its result. */
  run(task) {
    const result = this.#tail.then(task);
    this.#tail = result.then(noop, noop);
    return result;
  }
}

function noop() {}
