import Foundation
import PhotoLibClient

/// A `photolib apply` file: a JSON array of change requests (docs/APPLY.md).
///
/// Each entry is an object with `"op"` naming the request and its fields; `createAsset`
/// entries name a local `"path"` that is uploaded first.
struct ApplyFile {
    /// A request, or an asset to create from a local file once uploaded.
    enum Entry {
        case request(ChangeRequest)
        case createAsset(path: String, placeholder: String?, creationDate: Date?, location: LocationChange?, isFavorite: Bool, isHidden: Bool)
    }

    var entries: [Entry]

    /// The most entries a file may hold.
    static let maxEntries = ChangeLimits.maxRequests
    /// The largest apply file read (bytes): 1000 entries of generous size.
    static let maxFileBytes = 16 << 20

    init(contentsOf path: String) throws {
        // A regular file of bounded size (a FIFO or /dev/zero would be read without end).
        let data: Data
        do {
            data = Data(try FileInput.readWhole(path, limit: Self.maxFileBytes, what: "an apply file"))
        } catch {
            throw CLIError(error.message, code: error.code)
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw CLIError("\(path) is not valid JSON: \(error.localizedDescription)")
        }
        guard let list = root as? [Any] else { throw CLIError("\(path) must hold a JSON array of change requests (see docs/APPLY.md)") }
        guard !list.isEmpty, list.count <= Self.maxEntries else { throw CLIError("\(path) must hold 1…\(Self.maxEntries) change requests; it has \(list.count)") }
        // A relative `path` is read from the apply file's folder (as an `include` would be),
        // not from wherever photolib runs.
        let folder = (path as NSString).deletingLastPathComponent
        entries = try list.enumerated().map { index, item in
            guard let object = item as? [String: Any] else { throw CLIError("entry \(index) is not a JSON object") }
            let entry = try Self.entry(Fields(object, index: index))
            guard case .createAsset(let file, let placeholder, let date, let location, let favorite, let hidden) = entry, !file.hasPrefix("/"), !folder.isEmpty else {
                return entry
            }
            return .createAsset(path: (folder as NSString).appendingPathComponent(file), placeholder: placeholder, creationDate: date, location: location, isFavorite: favorite, isHidden: hidden)
        }
    }

    private static func entry(_ f: Fields) throws -> Entry {
        let op = try f.string("op")
        switch op {
        case "createAsset":
            return .createAsset(path: try f.string("path"), placeholder: try f.optionalString("placeholder"), creationDate: try f.optionalDate("creationDate"), location: try f.locationChange("location"), isFavorite: try f.bool("isFavorite") ?? false, isHidden: try f.bool("isHidden") ?? false)
        case "deleteAssets": return .request(.deleteAssets(try f.strings("assets")))
        case "restoreAssets": return .request(.restoreAssets(try f.strings("assets")))
        case "purgeAssets": return .request(.purgeAssets(try f.strings("assets")))
        case "setAssetProperties":
            return .request(.setAssetProperties(.init(asset: try f.string("asset"), isFavorite: try f.bool("isFavorite"), isHidden: try f.bool("isHidden"), creationDate: try f.optionalDate("creationDate"), location: try f.locationChange("location"))))
        case "createAlbum": return .request(.createAlbum(title: try f.string("title"), placeholder: try f.optionalString("placeholder"), parentFolder: try f.optionalString("folder")))
        case "createFolder": return .request(.createFolder(title: try f.string("title"), placeholder: try f.optionalString("placeholder"), parentFolder: try f.optionalString("folder")))
        case "renameCollection": return .request(.renameCollection(try f.string("collection"), title: try f.string("title")))
        case "deleteCollections": return .request(.deleteCollections(try f.strings("collections")))
        case "addAssets": return .request(.addAssets(album: try f.string("album"), assets: try f.strings("assets")))
        case "insertAssets": return .request(.insertAssets(album: try f.string("album"), assets: try f.strings("assets"), at: try f.int("index")))
        case "removeAssets": return .request(.removeAssets(album: try f.string("album"), assets: try f.strings("assets")))
        case "moveAssets": return .request(.moveAssets(album: try f.string("album"), from: try f.ints("from"), to: try f.int("to")))
        case "setKeyAsset": return .request(.setKeyAsset(album: try f.string("album"), asset: try f.optionalString("asset")))
        case "moveCollections": return .request(.moveCollections(try f.strings("collections"), toFolder: try f.optionalString("folder")))
        default:
            throw f.error("unknown op '\(op)'; see docs/APPLY.md for the list")
        }
    }

    /// Typed access to one entry's fields, with errors naming the entry and field.
    struct Fields {
        let object: [String: Any]
        let index: Int

        init(_ object: [String: Any], index: Int) {
            self.object = object
            self.index = index
        }

        func error(_ message: String) -> CLIError {
            CLIError("entry \(index)\((object["op"] as? String).map { " (\($0))" } ?? ""): \(message)")
        }

        func string(_ key: String) throws -> String {
            guard let value = object[key] as? String else { throw error("'\(key)' must be a string") }
            return value
        }

        func optionalString(_ key: String) throws -> String? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            guard let text = value as? String else { throw error("'\(key)' must be a string or null") }
            return text
        }

        func strings(_ key: String) throws -> [String] {
            guard let value = object[key] as? [Any], let texts = value as? [String], !texts.isEmpty else { throw error("'\(key)' must be a non-empty array of strings") }
            return texts
        }

        /// Whether `value` is JSON `true` / `false`. JSONSerialization hands out NSNumber for
        /// numbers and booleans alike, and on Linux the numbers 0 and 1 also cast to `Bool`
        /// (so `is Bool` refused `"index": 0`); only booleans have the `char` type.
        static func isBoolean(_ value: Any?) -> Bool {
            guard let number = value as? NSNumber else { return false }
            return String(cString: number.objCType) == "c"
        }

        func int(_ key: String) throws -> Int {
            guard let number = object[key] as? NSNumber, !Self.isBoolean(number), let value = Int(exactly: number.doubleValue), value >= 0 else { throw error("'\(key)' must be a non-negative integer") }
            return value
        }

        func ints(_ key: String) throws -> [Int] {
            guard let values = object[key] as? [Any], !values.isEmpty else { throw error("'\(key)' must be a non-empty array of indexes") }
            return try values.map { item in
                guard let number = item as? NSNumber, !Self.isBoolean(number), let value = Int(exactly: number.doubleValue), value >= 0 else { throw error("'\(key)' must hold non-negative integers") }
                return value
            }
        }

        func bool(_ key: String) throws -> Bool? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            guard Self.isBoolean(value), let flag = value as? Bool else { throw error("'\(key)' must be true or false") }
            return flag
        }

        func optionalDate(_ key: String) throws -> Date? {
            guard let text = try optionalString(key) else { return nil }
            do { return try DateArgument.parse(text) } catch let failure as CLIError { throw error(failure.message) }
        }

        /// Absent: unchanged; `null`: clear; `{"latitude":…, "longitude":…}`: set.
        func locationChange(_ key: String) throws -> LocationChange? {
            guard let value = object[key] else { return nil }
            if value is NSNull { return .clear }
            guard let fields = value as? [String: Any], let latitude = (fields["latitude"] as? NSNumber)?.doubleValue, let longitude = (fields["longitude"] as? NSNumber)?.doubleValue else {
                throw error("'\(key)' must be null or {\"latitude\": number, \"longitude\": number}")
            }
            do {
                return .set(try Location(latitude: latitude, longitude: longitude, altitude: (fields["altitude"] as? NSNumber)?.doubleValue).validated())
            } catch {
                throw self.error(error.message)
            }
        }
    }
}
