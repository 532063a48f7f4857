// A page's side of the relay between browsers (launch.py, Relay): a trace's other partitions run
// in browsers of their own (a second profile is a second user agent, with lock managers of its
// own), and their pages and the runner talk through the loopback server that served them all.
// Each page has a mailbox, named when it is made; messages to other mailboxes go out in order,
// one POST at a time with whatever queued meanwhile, and this page's come by long-polling GET.
export class Relay {
  // onError(message): a message could not be posted (the replay cannot be trusted after that).
  constructor(name, onError) {
    this.name = name;
    this.onError = onError;
    this.queue = [];  // [{to, message}] not yet posted
    this.posting = false;
  }

  send(to, message) {
    this.queue.push({ to, message });
    if (!this.posting) this.post();
  }

  async post() {
    this.posting = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0);
        const answer = await fetch('/relay', { method: 'POST', body: JSON.stringify(batch) });
        if (!answer.ok) throw new Error(`status ${answer.status}`);
      }
    } catch (e) {
      this.onError(`${this.name}: the relay lost messages: ${e}`);
    } finally {
      this.posting = false;
    }
  }

  // Calls onMessage for each message to this page, in the order they were sent, until the page
  // goes (or the server does: a failed poll is tried again a few times, then given up).
  async listen(onMessage) {
    let failures = 0;
    for (;;) {
      let messages;
      try {
        const answer = await fetch(`/relay?for=${encodeURIComponent(this.name)}`);
        messages = await answer.json();
        failures = 0;
      } catch (e) {
        if (++failures > 20) throw e;
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      for (const m of messages) onMessage(m);
    }
  }
}

// The mailbox names: the runner's, and the page of each other partition.
export const RUNNER = 'runner';
export const partitionMailbox = (partition) => `partition:${partition}`;
