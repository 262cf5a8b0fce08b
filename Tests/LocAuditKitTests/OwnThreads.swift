import Foundation
import Testing

extension Tag {
    /// Every suite of this target: it starts a program outside the test process (the built
    /// `locaudit`, a shell, gzip, PostgreSQL, Chromium, the fuzzers). The unit tests
    /// (LocAuditUnitTests) start none.
    @Tag static var endToEnd: Self
}

/// Threads of their own for tests that wait on other programs (the `locaudit` binary, a shell,
/// PostgreSQL, Chromium, the fuzzers). Swift Testing runs every test, synchronous or not, on
/// Swift's cooperative pool, which has one thread per core: on a 2-core machine two tests
/// waiting on a child process (`waitUntilExit`, a pipe read, `usleep`) held the whole pool,
/// and every other test, even one only awaiting `Task.sleep`, waited behind them with the CPU
/// idle. A test of a suite that carries `.ownThreads` runs on a thread of its own
/// (`TestThread`), at most `TestAdmission.width` such tests at once (the others wait for a
/// place without holding a thread), while the cooperative pool goes on with the in-process
/// tests. What such a test awaits resumes on its own thread, at once.
///
/// A test's time limit counts from before it waits for a place, so a test with a `.timeLimit`
/// goes to the head of the line (it waits for the first place to come free, seconds, not for
/// the tests before it), and a suite that carries `.ownThread` (the fuzz smoke test, the
/// longest, a compiler most of its time) starts at once, without a place.
struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// Start each test case at once, without a place.
    var atOnce = false

    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        let limited = test.traits.contains { $0 is TimeLimitTrait }
        if !atOnce { await TestAdmission.shared.enter(first: limited) }
        let thread = TestThread.take()
        do {
            try await withTaskExecutorPreference(thread) { try await function() }
        } catch {
            TestThread.putBack(thread)
            if !atOnce { await TestAdmission.shared.leave() }
            throw error
        }
        TestThread.putBack(thread)
        if !atOnce { await TestAdmission.shared.leave() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Runs each of the suite's tests on a thread of its own, a few at once (see `OwnThreadsTrait`).
    static var ownThreads: Self { OwnThreadsTrait() }
    /// Runs each of the suite's tests on a thread of its own, at once.
    static var ownThread: Self { OwnThreadsTrait(atOnce: true) }
}

/// How many end-to-end tests run at once. Four: they mostly wait (their programs use the CPU),
/// and timing tests such as `watch`'s latency keep within their bounds with four beside the
/// cooperative pool's in-process tests. `LOCAUDIT_TEST_THREADS` changes it.
actor TestAdmission {
    static let width = ProcessInfo.processInfo.environment["LOCAUDIT_TEST_THREADS"].flatMap { Int($0) }.map { max(1, min($0, 64)) } ?? 4
    static let shared = TestAdmission()

    private var free = width
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// Tests with a time limit: they get the next free place.
    private var waitingFirst: [CheckedContinuation<Void, Never>] = []

    func enter(first: Bool) async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { first ? waitingFirst.append($0) : waiting.append($0) }
    }

    func leave() {
        if !waitingFirst.isEmpty {
            waitingFirst.removeFirst().resume()
        } else if !waiting.isEmpty {
            waiting.removeFirst().resume()
        } else {
            free += 1
        }
    }
}

/// One thread that runs the jobs enqueued on it in order (a TaskExecutor). Kept for the next
/// test when a test is done (`take`, `putBack`): a run starts a few of them, never one a test.
final class TestThread: TaskExecutor, @unchecked Sendable {
    private static let idleLock = NSLock()
    nonisolated(unsafe) private static var idle: [TestThread] = []

    static func take() -> TestThread {
        idleLock.lock()
        defer { idleLock.unlock() }
        return idle.popLast() ?? TestThread()
    }

    static func putBack(_ thread: TestThread) {
        idleLock.lock()
        idle.append(thread)
        idleLock.unlock()
    }

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    private init() {
        let thread = Thread { [self] in self.work() }
        thread.name = "locaudit-test"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            // Drop what has run, now and then, so the array does not grow with every job.
            if next > 4096 {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
