import Dispatch
import Foundation
import Logging
import PhotoLibCore
import PhotoLibImaging
import PhotoLibStore
import Synchronization

/// Periodic clean-up: purges assets past the trash retention, expired staged uploads, and
/// history past its retention; records the size of assets edited before schema 9. Runs at start and every `maintenanceInterval`, off the
/// connection queues, on its own queue `photolibd.maintenance` (store writes: it may wait
/// on the library's lock and SQLite's busy timeout).
final class Maintenance: Sendable {
    private let service: PhotoLibraryService
    private let configuration: ServerConfiguration
    private let logger: Logger
    private let queue = DispatchQueue(label: "photolibd.maintenance", qos: .utility)
    /// Guards the timer between ``start()`` and ``stop()``. A leaf lock.
    private let timer = Mutex<(any DispatchSourceTimer)?>(nil)

    init(service: PhotoLibraryService, configuration: ServerConfiguration, logger: Logger) {
        self.service = service
        self.configuration = configuration
        self.logger = logger
    }

    func start() {
        let queue = self.queue, interval = max(1, configuration.maintenanceInterval)
        timer.withLock { timer in
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now(), repeating: interval)
            source.setEventHandler { [weak self] in self?.run(now: Date()) }
            source.resume()
            timer = source
        }
    }

    func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
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
        if !library.diskReserve.isHeld && !library.replenishDiskReserve() {
            logger.warning("the library's disk is too full to hold its reserve; uploads are refused until space is freed", metadata: [
                "free.mib": "\((library.diskReserve.freeBytes() ?? 0) >> 20)", "reserve.mib": "\(library.diskReserve.size >> 20)",
            ])
        }
        do {
            let pruned = try library.pruneHistory(olderThan: now.addingTimeInterval(-configuration.historyRetention))
            if pruned > 0 { logger.info("pruned history", metadata: ["transactions": "\(pruned)"]) }
        } catch {
            logger.warning("history pruning failed: \(error.message)")
        }
        sizeOlderEdits(now: now)
    }

    /// Assets edited before schema 9 still record their original's size: each render's size
    /// is read from its JPEG header and recorded (a change the feed delivers), 100 at a time
    /// until none is left. A render that cannot be read keeps the size it has.
    private func sizeOlderEdits(now: Date) {
        let library = service.library
        do {
            while true {
                let edits = try library.unsizedEdits(limit: 100)
                guard !edits.isEmpty else { return }
                let sizes = edits.map { (assetIdentifier: $0.assetIdentifier, size: $0.renderPath.flatMap(Self.jpegSize)) }
                if let result = try library.recordEditedSizes(sizes, now: now) {
                    logger.info("recorded the size of assets edited by an older version", metadata: ["assets": "\(result.changes.count)", "change.token": "\(result.token)"])
                    service.changesCommitted(result)
                }
            }
        } catch {
            logger.warning("recording the size of edited assets failed: \(error.message)")
        }
    }

    /// The upright size in the JPEG header of the file at `path`, from its first 256 KiB
    /// (a render's header and markers come first); `nil` when it cannot be read.
    static func jpegSize(_ path: String) -> PixelSize? {
        guard let head = try? WholeFile.head(path, what: "a render", count: PhotoLibraryService.headerBytes),
            let info = try? JPEGInspector.inspect(head)
        else { return nil }
        return PixelSize(width: info.pixelWidth, height: info.pixelHeight)
    }
}
