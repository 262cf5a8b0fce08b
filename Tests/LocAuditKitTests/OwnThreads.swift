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
/// idle. A suite that carries `.ownThreads` runs its tests on `ProcessTestThreads.shared`
/// instead: `width` threads, so that up to that many such tests wait at once while the
/// cooperative pool goes on with the in-process tests.
struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(ProcessTestThreads.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Runs the suite's tests on `ProcessTestThreads.shared` (see `OwnThreadsTrait`).
    static var ownThreads: Self { OwnThreadsTrait() }
}

/// A fixed set of threads that run jobs in the order they were enqueued (a TaskExecutor).
final class ProcessTestThreads: TaskExecutor, @unchecked Sendable {
    /// Four: the tests that wait on processes mostly wait (their programs use the CPU, and
    /// timing tests such as `watch`'s latency stay within their bounds with four at once
    /// beside the cooperative pool's two). `LOCAUDIT_TEST_THREADS` changes it.
    static let width = ProcessInfo.processInfo.environment["LOCAUDIT_TEST_THREADS"].flatMap { Int($0) }.map { max(1, min($0, 64)) } ?? 4
    static let shared = ProcessTestThreads(width: width)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    init(width: Int) {
        for index in 0..<width {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "locaudit-test-\(index)"
            thread.start()
        }
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
            if next > 4096 { jobs.removeFirst(next); next = 0 }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
