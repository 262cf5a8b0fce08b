import Foundation

/// A bounded hand-over of content blocks from the reading thread (read, hash,
/// inflate) to the parsing thread, so that the two overlap on two cores.
final class ChunkPipe: @unchecked Sendable {
    private let condition = NSCondition()
    private var chunks: [ByteChunk] = []
    private var finished = false
    private var failure: Error?
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int = 4) { self.capacity = capacity }

    /// Starts a thread that reads `stream` to its end into the pipe.
    static func reading(_ stream: ByteStream, onChunk: @escaping @Sendable (ByteChunk) -> Void = { _ in }) -> ChunkPipe {
        let pipe = ChunkPipe()
        let thread = Thread {
            do {
                while let chunk = try stream.next() {
                    onChunk(chunk)
                    guard pipe.put(chunk) else { break }
                }
                pipe.finish(nil)
            } catch {
                pipe.finish(error)
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
        return pipe
    }

    /// Waits for room; false when the consumer has gone.
    func put(_ chunk: ByteChunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        chunks.append(chunk)
        condition.broadcast()
        return true
    }

    func finish(_ error: Error?) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next block, nil at the end; rethrows the reader's error once all blocks before it were taken.
    func take() throws -> ByteChunk? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && !finished { condition.wait() }
        if !chunks.isEmpty {
            let chunk = chunks.removeFirst()
            condition.broadcast()
            return chunk
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the reader (the consumer failed) and waits until it has let go of the stream.
    func cancelAndWait() {
        condition.lock()
        cancelled = true
        chunks.removeAll()
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
