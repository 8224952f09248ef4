import Dispatch
import PhotoLibNet

/// A task executor that runs jobs on a connection's serial queue: what
/// ``PhotoLibrary/taskExecutor`` hands out.
///
/// A task that prefers it (`Task(executorPreference:)`, `withTaskExecutorPreference`) and
/// awaits a call of this connection is resumed where the call ends, in the turn of the queue
/// that read the answer: its code after the `await` runs at the end of that turn, and the
/// request it makes next leaves with the turn's writes. No thread wakes up for it, as with
/// result handlers. Jobs run in the order they were enqueued, never nested in one another.
///
/// The contract is the result handlers': code running here must not block, since the
/// connection's I/O (and, while it runs on an event loop's thread, other connections' I/O)
/// waits for it.
///
/// A turn runs the jobs enqueued until its end once: a job enqueued while they run (a task
/// yielding, or resuming another) gets a turn of its own, queued behind the connection's
/// other work, so that a task that never stops yielding cannot keep the queue.
///
/// `@unchecked Sendable`: ``waiting``, ``turnTakesJobs`` and ``runningJobs`` are touched only
/// on the channel's queue.
final class ConnectionExecutor: TaskExecutor, @unchecked Sendable {
    /// The connection's socket: every job runs on its queue, in one of its turns (so that the
    /// jobs' writes leave in one `send` at the turn's end).
    private let channel: SocketChannel
    /// On the queue: jobs enqueued during the turn running now, which runs them before it ends.
    private var waiting: [UnownedJob] = []
    /// On the queue: whether the turn running now runs ``waiting`` before it ends.
    private var turnTakesJobs = false
    /// On the queue: whether that turn is running its jobs (and takes no more).
    private var runningJobs = false

    /// An executor on `channel`'s queue.
    init(channel: SocketChannel) {
        self.channel = channel
    }

    /// Takes a job: on the queue, within a turn that runs jobs (``turn(_:)``) and has not
    /// started them yet, it waits for that turn's end; otherwise it gets a turn of its own,
    /// queued. What waits is one job per task that prefers this executor: the application's
    /// own tasks bound it.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if channel.isOnQueue && turnTakesJobs && !runningJobs {
            waiting.append(job)
            return
        }
        channel.queue.async { [self] in
            channel.turn { turn { waiting.append(job) } }
        }
    }

    /// On the queue: runs `body`, then every job enqueued meanwhile, in order (those they
    /// enqueue get turns of their own). Nested in another turn, `body` just runs: the outer
    /// turn runs the jobs.
    func turn(_ body: () -> Void) {
        if turnTakesJobs { return body() }
        turnTakesJobs = true
        body()
        runningJobs = true
        let jobs = waiting
        waiting.removeAll(keepingCapacity: true)
        for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        runningJobs = false
        turnTakesJobs = false
    }
}
