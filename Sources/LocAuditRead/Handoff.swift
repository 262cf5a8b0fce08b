import Foundation

/// A bounded hand-over of items from one thread to another, so that reading,
/// parsing and writing overlap on the cores.
// @unchecked: every mutable field is read and written only with `condition` locked.
package final class Handoff<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var finished = false
    private var failure: Error?
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Runs `produce` on a new thread; what it puts ends with its return or its error.
    package static func producing(_ name: String, capacity: Int, _ produce: @escaping @Sendable (Handoff<Item>) throws -> Void) -> Handoff<Item> {
        let handoff = Handoff<Item>(capacity: capacity)
        let thread = Thread {
            do {
                try produce(handoff)
                handoff.finish(nil)
            } catch {
                handoff.finish(error)
            }
        }
        thread.stackSize = 4 << 20
        thread.name = name
        thread.start()
        return handoff
    }

    /// Waits for room; throws `Cancelled` when the consumer has gone.
    package func put(_ item: Item) throws {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        items.append(item)
        condition.broadcast()
    }

    private func finish(_ error: Error?) {
        condition.lock()
        finished = true
        if !(error is Cancelled) { failure = error }
        condition.broadcast()
        condition.unlock()
    }

    /// The next item, nil at the end; rethrows the producer's error once all items before it were taken.
    package func take() throws -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !finished { condition.wait() }
        if !items.isEmpty {
            let item = items.removeFirst()
            condition.broadcast()
            return item
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the producer (the consumer failed) and waits until it has returned.
    package func cancelAndWait() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    /// The producer stopped because the consumer cancelled.
    struct Cancelled: Error {}
}
