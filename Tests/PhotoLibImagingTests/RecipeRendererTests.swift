import PhotoLibCore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging

@Suite("Filter recipes: colour maths, geometry, determinism")
struct RecipeRendererTests {
    /// A solid-colour JPEG of `width` × `height` (quality 100).
    static func solid(_ rgb: (Int, Int, Int), width: Int = 32, height: Int = 16) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<(width * height) { bytes += [UInt8(rgb.0), UInt8(rgb.1), UInt8(rgb.2)] }
        return try LibJPEG.encode(PixelBuffer.make(width: width, height: height, components: 3, bytes: bytes), quality: 100)
    }

    /// The centre pixel of a render, decoded.
    static func centre(_ jpeg: [UInt8]) throws -> (Int, Int, Int) {
        let pixels = try DecodedPixels(jpeg: jpeg)
        let (x, y) = (pixels.width / 2, pixels.height / 2)
        return (Int(pixels.sample(x, y, 0)), Int(pixels.sample(x, y, 1)), Int(pixels.sample(x, y, 2)))
    }

    /// A quarter-size copy of the landscape photo, so the tests stay quick.
    static let photo: [UInt8] = {
        do {
            return try JPEGRenderer.render(Photos.landscape, request: RenderRequest(targetSize: PixelSize(width: 320, height: 320), quality: 95)).jpeg
        } catch {
            fatalError("cannot make the test photo: \(error)")
        }
    }()

    @Test("every filter renders, twice to the same bytes, and differently from the others")
    func filtersAreDeterministicAndDistinct() throws {
        var seen: [[UInt8]: FilterName] = [:]
        for name in FilterName.allCases {
            let recipe = FilterRecipe([.filter(name, intensity: 1)])
            let first = try RecipeRenderer.render(Self.photo, recipe: recipe)
            let second = try RecipeRenderer.render(Self.photo, recipe: recipe)
            let same = first.jpeg == second.jpeg  // compared first so a failure does not print the bytes
            #expect(same, "\(name) is not deterministic")
            #expect(seen[first.jpeg] == nil, "\(name) renders the same bytes as \(seen[first.jpeg].map(String.init(describing:)) ?? "")")
            seen[first.jpeg] = name
        }
        let plain = try RecipeRenderer.render(Self.photo, recipe: FilterRecipe())
        #expect(seen[plain.jpeg] == nil, "a filter left the photo unchanged")
    }

    @Test("Noir, Mono and Tonal are gray", arguments: [FilterName.noir, .mono, .tonal])
    func grayFilters(name: FilterName) throws {
        let rendered = try RecipeRenderer.render(Self.photo, recipe: FilterRecipe([.filter(name, intensity: 1)]))
        let pixels = try DecodedPixels(jpeg: rendered.jpeg)
        var worst = 0
        for index in stride(from: 0, to: pixels.bytes.count, by: 3) {
            let (r, g, b) = (Int(pixels.bytes[index]), Int(pixels.bytes[index + 1]), Int(pixels.bytes[index + 2]))
            worst = max(worst, abs(r - g), abs(g - b))
        }
        #expect(worst <= 3, "\(name): a pixel's channels differ by \(worst)")
    }

    @Test("colour maths on a solid colour, computed independently")
    func solidColours() throws {
        let input = (200, 120, 40)
        let jpeg = try Self.solid(input)
        func close(_ got: (Int, Int, Int), _ want: (Double, Double, Double), _ what: String) {
            let errors = [abs(Double(got.0) - want.0), abs(Double(got.1) - want.1), abs(Double(got.2) - want.2)]
            #expect(errors.allSatisfy { $0 <= 3 }, "\(what): got \(got), expected \(want)")
        }
        let (r, g, b) = (Double(input.0), Double(input.1), Double(input.2))
        let sepia = try Self.centre(RecipeRenderer.render(jpeg, recipe: FilterRecipe([.filter(.sepia, intensity: 1)])).jpeg)
        close(sepia, (min(255, 0.393 * r + 0.769 * g + 0.189 * b), min(255, 0.349 * r + 0.686 * g + 0.168 * b), 0.272 * r + 0.534 * g + 0.131 * b), "sepia")
        let mono = try Self.centre(RecipeRenderer.render(jpeg, recipe: FilterRecipe([.filter(.mono, intensity: 1)])).jpeg)
        let luma = 0.299 * r + 0.587 * g + 0.114 * b
        close(mono, (luma, luma, luma), "mono")
        let halfMono = try Self.centre(RecipeRenderer.render(jpeg, recipe: FilterRecipe([.filter(.mono, intensity: 0.5)])).jpeg)
        close(halfMono, ((r + luma) / 2, (g + luma) / 2, (b + luma) / 2), "mono at 0.5")
        let brighter = try Self.centre(RecipeRenderer.render(jpeg, recipe: FilterRecipe([.exposure(0.5)])).jpeg)
        close(brighter, (min(255, r * 1.41421), g * 1.41421, b * 1.41421), "exposure +0.5 EV")
        let gray = try Self.centre(RecipeRenderer.render(jpeg, recipe: FilterRecipe([.saturation(-1)])).jpeg)
        close(gray, (luma, luma, luma), "saturation −1")
        let flat = try Self.centre(RecipeRenderer.render(jpeg, recipe: FilterRecipe([.contrast(-0.5)])).jpeg)
        close(flat, (128 + (r - 128) / 2, 128 + (g - 128) / 2, 128 + (b - 128) / 2), "contrast −0.5")
    }

    @Test("intensity 0 and a double mirror change nothing")
    func neutralRecipes() throws {
        let plain = try RecipeRenderer.render(Self.photo, recipe: FilterRecipe()).jpeg
        for recipe in [
            FilterRecipe([.filter(.noir, intensity: 0)]), FilterRecipe([.mirror, .mirror]),
            FilterRecipe([.rotate(quarterTurns: 2), .rotate(quarterTurns: 2)]),
        ] {
            let same = try RecipeRenderer.render(Self.photo, recipe: recipe).jpeg == plain
            #expect(same, "\(recipe) changed the photo")
        }
    }

    @Test("geometry: a crop after a turn is the matching crop before it", arguments: 1...8)
    func geometryComposes(orientation: Int) throws {
        let jpeg = ExifFixture.jpegWithExif(Self.photo, orientation: orientation)
        let info = try JPEGInspector.inspect(jpeg)
        // Turning clockwise puts the original's bottom half on the left.
        let turnThenCrop = FilterRecipe([.rotate(quarterTurns: 1), .crop(NormalizedRect(x: 0, y: 0, width: 0.5, height: 1))])
        let cropThenTurn = FilterRecipe([.crop(NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5)), .rotate(quarterTurns: 1)])
        let a = try RecipeRenderer.render(jpeg, recipe: turnThenCrop)
        let b = try RecipeRenderer.render(jpeg, recipe: cropThenTurn)
        let same = a.jpeg == b.jpeg
        #expect(same, "orientation \(orientation)")
        let size = RecipeRenderer.outputSize(recipe: turnThenCrop, original: info)
        #expect(size == PixelSize(width: a.width, height: a.height), "orientation \(orientation): \(size) vs \(a.width)x\(a.height)")
        #expect(a.height == info.pixelWidth, "orientation \(orientation): the turn puts the upright width vertical")
        // A mirror then the left half is the right half of the original, mirrored.
        let mirrored = try DecodedPixels(jpeg: RecipeRenderer.render(jpeg, recipe: FilterRecipe([.mirror, .crop(NormalizedRect(x: 0, y: 0, width: 0.5, height: 1))])).jpeg)
        let right = try DecodedPixels(jpeg: RecipeRenderer.render(jpeg, recipe: FilterRecipe([.crop(NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1))])).jpeg)
        #expect(mirrored.width == right.width && mirrored.height == right.height)
        var flipped = right
        for y in 0..<right.height {
            for x in 0..<right.width {
                for k in 0..<3 { flipped.bytes[(y * right.width + x) * 3 + k] = right.sample(right.width - 1 - x, y, k) }
            }
        }
        #expect(mirrored.meanAbsoluteDifference(flipped) < 2, "orientation \(orientation)")
    }

    @Test("bad recipes are refused with the step named")
    func badRecipes() {
        for (recipe, words) in [
            (FilterRecipe([.filter(.noir, intensity: 1.5)]), "intensity"),
            (FilterRecipe([.exposure(9)]), "exposure"),
            (FilterRecipe([.rotate(quarterTurns: 4)]), "rotation"),
            (FilterRecipe([.crop(NormalizedRect(x: 0.8, y: 0, width: 0.5, height: 1))]), "crop"),
            (FilterRecipe(Array(repeating: .mirror, count: 65)), "at most 64"),
        ] {
            let error = imagingError { () throws(ImagingError) in try RecipeRenderer.render(Self.photo, recipe: recipe) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        }
    }

    @Test("a cancelled render stops")
    func cancellation() {
        let control = RenderControl()
        control.cancel()
        let error = imagingError { () throws(ImagingError) in
            try RecipeRenderer.render(Self.photo, recipe: FilterRecipe([.filter(.sepia, intensity: 1)]), control: control)
        }
        #expect(error?.code == .cancelled)
    }

    /// An edit's crop keeps exactly the pixels a request's crop of the same rectangle keeps
    /// (`NormalizedRect.pixels`): the size the recipe declares, the render and a `get --crop`
    /// agree. (On the 2560 × 3837 portrait, crop 0.1, 0.2, 0.33, 0.41 rendered 846 px wide,
    /// where the request rendered 845.)
    @Test("a recipe's crop renders the pixels a request's crop keeps", arguments: [
        NormalizedRect(x: 0.1, y: 0.2, width: 0.33, height: 0.41), NormalizedRect(x: 0.5, y: 0.5, width: 0.234, height: 0.1567),
        NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5),
    ])
    func cropAgreesWithRequests(crop: NormalizedRect) throws {
        let original = try Fixtures.bytes(at: Fixtures.portrait)
        let recipe = FilterRecipe([.crop(crop)])
        let info = try JPEGInspector.inspect(original)
        let pixels = crop.pixels(width: info.storedWidth, height: info.storedHeight)
        let declared = RecipeRenderer.outputSize(recipe: recipe, original: info)
        let rendered = try RecipeRenderer.render(original, recipe: recipe)
        let requested = try JPEGRenderer.render(original, request: RenderRequest(targetSize: .maximum, resizeMode: .none, crop: crop))
        #expect([declared.width, declared.height] == [pixels.width, pixels.height], "\(crop)")
        #expect([rendered.width, rendered.height] == [pixels.width, pixels.height], "\(crop)")
        #expect([requested.width, requested.height] == [pixels.width, pixels.height], "\(crop)")
    }
}
