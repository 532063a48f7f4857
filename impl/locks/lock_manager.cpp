// Why these structures give the spec's observable behaviour (web-locks#lock-manager):
//
// - Grantability (web-locks#grantable) asks: is the request at the front of its name's queue (or
//   the queue empty), and is any lock of that name held (exclusive), or held exclusively (shared)?
//   Per name we keep `exclusive_held` and `shared_held`, so the answer is O(1) instead of a scan of
//   the held set.
// - The held set is a set in insertion order; an intrusive list of records in grant order gives
//   O(1) insertion and removal and iterates in the same order for snapshots.
// - The lock request queue map is ordered by when a name was first used on the lock task queue.
//   Names get an ordinal at that moment and are never forgotten (the spec never removes a queue),
//   so ordering the names that have pending requests by ordinal reproduces the map order.
// - Steal walks only the held locks of its name (a per-name list in grant order, the held set's
//   order restricted to the name).
// - Termination visits only the agent's records (per-agent list), ordered the way the spec's
//   scans would meet them: requests by (name ordinal, place in queue), then locks by grant order.
//   Places in a queue are keys that grow at the back and shrink at the front (steal prepends).
// - Processing a queue that did not change is a no-op: after every lock task queue step the front
//   of every queue is not grantable (each change to a name is followed by processing its queue).
//   So release or abort on a ticket whose record is gone can skip the processing the spec does.
#include "lockstep/impl/lock_manager.h"

#include <algorithm>
#include <limits>

#include "lockstep/string_index.h"

namespace lockstep::impl {
namespace {

constexpr std::uint32_t kNil = std::numeric_limits<std::uint32_t>::max();

struct Link {
  std::uint32_t prev = kNil;
  std::uint32_t next = kNil;
};

struct List {
  std::uint32_t head = kNil;
  std::uint32_t tail = kNil;
  std::uint32_t size = 0;
  bool empty() const { return size == 0; }
};

// Intrusive doubly linked lists over a vector of T, threaded through the member `link`.
template <class T>
void push_back(std::vector<T>& items, List& list, std::uint32_t i, Link T::*link) {
  (items[i].*link) = Link{list.tail, kNil};
  if (list.tail != kNil)
    (items[list.tail].*link).next = i;
  else
    list.head = i;
  list.tail = i;
  ++list.size;
}

template <class T>
void push_front(std::vector<T>& items, List& list, std::uint32_t i, Link T::*link) {
  (items[i].*link) = Link{kNil, list.head};
  if (list.head != kNil)
    (items[list.head].*link).prev = i;
  else
    list.tail = i;
  list.head = i;
  ++list.size;
}

template <class T>
void erase(std::vector<T>& items, List& list, std::uint32_t i, Link T::*link) {
  Link& l = items[i].*link;
  if (l.prev != kNil)
    (items[l.prev].*link).next = l.next;
  else
    list.head = l.next;
  if (l.next != kNil)
    (items[l.next].*link).prev = l.prev;
  else
    list.tail = l.prev;
  l = Link{};
  --list.size;
}

enum class Phase : std::uint8_t { Free, Queued, Held, Stolen };

struct Record {
  std::uint32_t generation = 1;
  Phase phase = Phase::Free;
  Mode mode = Mode::Exclusive;
  std::uint32_t name = 0;  // ordinal
  AgentId agent = 0;
  std::int64_t queue_key = 0;     // place in its name's queue
  std::uint64_t held_serial = 0;  // place in the held set
  void* user = nullptr;
  Link name_link;   // its name's queue (Queued) or its name's held locks (Held)
  Link held_link;   // the manager's held set (Held)
  Link agent_link;  // its agent's records (any phase but Free)
  std::uint32_t next_free = kNil;
};

struct Name {
  std::string text;
  bool exclusive_held = false;
  std::uint32_t shared_held = 0;
  List queue;
  List held;
  std::int64_t front_key = 0;  // keys of prepended requests go down from here
  std::int64_t back_key = 0;   // keys of appended requests go up from here
  Link pending_link;           // in the list of names with a non-empty queue
};

struct Agent {
  std::string client_id;
  List records;
};

}  // namespace

struct LockManager::State {
  explicit State(Observer& o) : observer(o) {}
  Observer& observer;
  std::vector<Record> records;
  std::uint32_t free_head = kNil;
  std::vector<Name> names;
  StringIndex name_index;  // name -> ordinal
  List pending_names;
  List held;
  std::uint64_t next_held_serial = 0;
  std::size_t pending = 0;
  std::vector<Agent> agents;

  std::uint32_t intern(std::string_view text) {
    const std::uint32_t found = name_index.find(
        text, [this](std::uint32_t n) -> const std::string& { return names[n].text; });
    if (found != StringIndex::kNone) return found;
    const auto ordinal = static_cast<std::uint32_t>(names.size());
    names.emplace_back();
    names.back().text = std::string(text);
    name_index.insert(text, ordinal);
    return ordinal;
  }

  std::uint32_t allocate() {
    if (free_head == kNil) {
      records.emplace_back();
      return static_cast<std::uint32_t>(records.size() - 1);
    }
    const std::uint32_t i = free_head;
    free_head = records[i].next_free;
    return i;
  }

  void release_record(std::uint32_t i) {
    Record& r = records[i];
    erase(records, agents[r.agent].records, i, &Record::agent_link);
    r.phase = Phase::Free;
    r.user = nullptr;
    if (++r.generation == 0) r.generation = 1;  // a stale ticket never matches again
    r.next_free = free_head;
    free_head = i;
  }

  Record* live(Ticket t) {
    if (!t || t.slot >= records.size()) return nullptr;
    Record& r = records[t.slot];
    return r.generation == t.generation && r.phase != Phase::Free ? &r : nullptr;
  }
  const Record* live(Ticket t) const { return const_cast<State*>(this)->live(t); }

  Ticket ticket(std::uint32_t i) const { return Ticket{i, records[i].generation}; }

  // The lock modes a name's held locks allow (web-locks#grantable steps 8-9).
  static bool compatible(const Name& n, Mode mode) {
    return mode == Mode::Exclusive ? !n.exclusive_held && n.shared_held == 0 : !n.exclusive_held;
  }

  void enqueue(std::uint32_t i, bool front) {
    Record& r = records[i];
    Name& n = names[r.name];
    if (n.queue.empty()) push_back(names, pending_names, r.name, &Name::pending_link);
    r.phase = Phase::Queued;
    if (front) {
      r.queue_key = --n.front_key;
      push_front(records, n.queue, i, &Record::name_link);
    } else {
      r.queue_key = n.back_key++;
      push_back(records, n.queue, i, &Record::name_link);
    }
    ++pending;
  }

  void dequeue(std::uint32_t i) {
    Record& r = records[i];
    Name& n = names[r.name];
    erase(records, n.queue, i, &Record::name_link);
    if (n.queue.empty()) erase(names, pending_names, r.name, &Name::pending_link);
    --pending;
  }

  void hold(std::uint32_t i) {
    Record& r = records[i];
    Name& n = names[r.name];
    r.phase = Phase::Held;
    r.held_serial = next_held_serial++;
    push_back(records, n.held, i, &Record::name_link);
    push_back(records, held, i, &Record::held_link);
    if (r.mode == Mode::Exclusive)
      n.exclusive_held = true;
    else
      ++n.shared_held;
  }

  void unhold(std::uint32_t i) {
    Record& r = records[i];
    Name& n = names[r.name];
    erase(records, n.held, i, &Record::name_link);
    erase(records, held, i, &Record::held_link);
    if (r.mode == Mode::Exclusive)
      n.exclusive_held = false;
    else
      --n.shared_held;
  }

  // web-locks#algorithm-process-request: grant from the front while the front is grantable.
  void process(std::uint32_t name) {
    Name& n = names[name];
    while (!n.queue.empty()) {
      const std::uint32_t front = n.queue.head;
      if (!compatible(n, records[front].mode)) return;  // step 2.1
      dequeue(front);                                   // step 2.2
      hold(front);                                      // step 2.13
      observer.granted(ticket(front), records[front].user);
    }
  }

  void abort(std::uint32_t i) {
    const std::uint32_t name = records[i].name;
    dequeue(i);
    release_record(i);
    process(name);
  }

  void release(std::uint32_t i) {
    const std::uint32_t name = records[i].name;
    if (records[i].phase == Phase::Held) unhold(i);  // a stolen lock left the held set already
    release_record(i);
    process(name);
  }
};

LockManager::LockManager(Observer& observer) : state_(std::make_unique<State>(observer)) {}
LockManager::~LockManager() = default;

AgentId LockManager::add_agent(std::string client_id) {
  state_->agents.emplace_back();
  state_->agents.back().client_id = std::move(client_id);
  return static_cast<AgentId>(state_->agents.size() - 1);
}

RequestResult LockManager::request(AgentId agent, std::string_view name, Mode mode,
                                   RequestFlags flags, void* user) {
  State& s = *state_;
  const std::uint32_t ordinal = s.intern(name);  // get-the-lock-request-queue
  Name& n = s.names[ordinal];
  if (!flags.steal && flags.if_available && !(n.queue.empty() && State::compatible(n, mode)))
    return RequestResult{Ticket{}, RequestOutcome::NotAvailable};  // step 3.5.1
  const std::uint32_t i = s.allocate();
  Record& r = s.records[i];
  r.mode = mode;
  r.name = ordinal;
  r.agent = agent;
  r.user = user;
  push_back(s.records, s.agents[agent].records, i, &Record::agent_link);
  if (flags.steal) {
    // Step 3.4: every held lock of the name leaves the held set, in held set order.
    while (!n.held.empty()) {
      const std::uint32_t victim = n.held.head;
      s.unhold(victim);
      s.records[victim].phase = Phase::Stolen;
      s.observer.stolen(s.ticket(victim), s.records[victim].user);
    }
    s.enqueue(i, /*front=*/true);  // step 3.4.2
  } else {
    s.enqueue(i, /*front=*/false);  // step 3.5.2
  }
  const Ticket t = s.ticket(i);
  s.process(ordinal);  // step 3.6
  return RequestResult{
      t, s.records[i].phase == Phase::Held ? RequestOutcome::Granted : RequestOutcome::Queued};
}

void LockManager::release(Ticket lock) {
  const Record* r = state_->live(lock);
  if (r && r->phase != Phase::Queued) state_->release(lock.slot);
}

void LockManager::abort(Ticket request) {
  const Record* r = state_->live(request);
  if (r && r->phase == Phase::Queued) state_->abort(request.slot);
}

void LockManager::terminate(AgentId agent) {
  State& s = *state_;
  std::vector<std::uint32_t> requests, locks;
  for (std::uint32_t i = s.agents[agent].records.head; i != kNil; i = s.records[i].agent_link.next)
    if (s.records[i].phase == Phase::Queued) requests.push_back(i);
  // Step 1: the agent's queued requests in queue map order, front to back.
  std::sort(requests.begin(), requests.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Record &x = s.records[a], &y = s.records[b];
    return x.name != y.name ? x.name < y.name : x.queue_key < y.queue_key;
  });
  std::vector<Ticket> tickets;
  for (std::uint32_t i : requests) tickets.push_back(s.ticket(i));
  for (Ticket t : tickets)
    if (const Record* r = s.live(t); r && r->phase == Phase::Queued) s.abort(t.slot);
  // Step 2: the locks it holds now (aborting may have granted some of its own), in held order.
  for (std::uint32_t i = s.agents[agent].records.head; i != kNil; i = s.records[i].agent_link.next)
    if (s.records[i].phase == Phase::Held) locks.push_back(i);
  std::sort(locks.begin(), locks.end(), [&](std::uint32_t a, std::uint32_t b) {
    return s.records[a].held_serial < s.records[b].held_serial;
  });
  tickets.clear();
  for (std::uint32_t i : locks) tickets.push_back(s.ticket(i));
  for (Ticket t : tickets)
    if (const Record* r = s.live(t); r && r->phase == Phase::Held) s.release(t.slot);
}

Snapshot LockManager::snapshot() const {
  const State& s = *state_;
  Snapshot out;
  const auto entry = [&](const Record& r) {
    return SnapshotEntry{s.names[r.name].text, r.mode, s.agents[r.agent].client_id, r.user};
  };
  std::vector<std::uint32_t> names;
  for (std::uint32_t n = s.pending_names.head; n != kNil; n = s.names[n].pending_link.next)
    names.push_back(n);
  std::sort(names.begin(), names.end());  // ordinals are the map's insertion order
  out.pending.reserve(s.pending);
  for (std::uint32_t n : names)
    for (std::uint32_t i = s.names[n].queue.head; i != kNil; i = s.records[i].name_link.next)
      out.pending.push_back(entry(s.records[i]));
  out.held.reserve(s.held.size);
  for (std::uint32_t i = s.held.head; i != kNil; i = s.records[i].held_link.next)
    out.held.push_back(entry(s.records[i]));
  return out;
}

bool LockManager::holds(Ticket ticket) const {
  const Record* r = state_->live(ticket);
  return r && r->phase == Phase::Held;
}

bool LockManager::queued(Ticket ticket) const {
  const Record* r = state_->live(ticket);
  return r && r->phase == Phase::Queued;
}

std::size_t LockManager::held_count() const {
  return state_->held.size;
}

std::size_t LockManager::pending_count() const {
  return state_->pending;
}

std::size_t LockManager::name_count() const {
  return state_->names.size();
}

void* LockManager::user(Ticket ticket) const {
  const Record* r = state_->live(ticket);
  return r ? r->user : nullptr;
}

}  // namespace lockstep::impl
