import Dispatch
import Foundation
import Logging
import PhotoLibStore

/// Periodic clean-up: purges assets past the trash retention, expired staged uploads, and
/// history past its retention. Runs at start and every `maintenanceInterval`, off the
/// connection queues.
final class Maintenance: @unchecked Sendable {
    private let service: PhotoLibraryService
    private let configuration: ServerConfiguration
    private let logger: Logger
    private let queue = DispatchQueue(label: "photolibd.maintenance", qos: .utility)
    private var timer: (any DispatchSourceTimer)?

    init(service: PhotoLibraryService, configuration: ServerConfiguration, logger: Logger) {
        self.service = service
        self.configuration = configuration
        self.logger = logger
    }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: max(1, configuration.maintenanceInterval))
        timer.setEventHandler { [weak self] in self?.run(now: Date()) }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }

    /// One round of clean-up; failures are logged and retried next round.
    func run(now: Date) {
        let library = service.library
        do {
            if let result = try library.purgeExpiredTrash(olderThan: configuration.trashRetention, now: now) {
                logger.info("purged expired trash", metadata: ["assets": "\(result.changes.filter { $0.objectType == .asset }.count)", "change.token": "\(result.token)"])
                service.changesCommitted(result)
            }
        } catch {
            logger.warning("trash purge failed: \(error.message)")
        }
        do {
            let removed = try library.purgeExpiredUploads(now: now)
            if removed > 0 { logger.info("removed expired uploads", metadata: ["count": "\(removed)"]) }
        } catch {
            logger.warning("upload clean-up failed: \(error.message)")
        }
        do {
            let pruned = try library.pruneHistory(olderThan: now.addingTimeInterval(-configuration.historyRetention))
            if pruned > 0 { logger.info("pruned history", metadata: ["transactions": "\(pruned)"]) }
        } catch {
            logger.warning("history pruning failed: \(error.message)")
        }
    }
}
