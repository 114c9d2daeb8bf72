import Anna
import AnnaKit
import Testing

/// The reference's `CollectionViewTests`, ported to the kit (tasks in `Fixtures/original` and
/// `Fixtures/original-ts`, each test on both). The reference names sections in its
/// section-analyzable delegate; the kit's data source names them, as it does for tables.
@MainActor
@Suite("Reference: CollectionViewTests")
struct OriginalCollectionTests {
    @Test("test_collectionViewSectionShouldReportAppeared: sections appear as their first items are shown", arguments: referenceModules)
    func sectionAppeared(module: String) async {
        let harness = Harness(module: module)
        harness.show(SectionedCollectionController())
        await harness.expectAnswers("collection.sectionAppeared", [42, 43])
    }
}

/// A plain controller (no analyzer) with a collection view `tb` (a standalone name) of 20
/// named sections of one unnamed item; scrolls to the last section when it appears.
final class SectionedCollectionController: ViewController, CollectionViewDataSource, CollectionViewDelegate {
    let collection = CollectionView()

    override func viewDidLoad() {
        super.viewDidLoad()
        collection.delegate = self
        collection.dataSource = self
        collection.register(CollectionViewCell.self, forCellWithReuseIdentifier: "r")
        view.addSubview(collection)
        collection.analyzer.enable(naming: "tb")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        collection.scrollToItem(at: CollectionIndexPath(item: 0, section: 19))
    }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: CollectionIndexPath) -> CollectionViewCell {
        collectionView.dequeueReusableCell(withReuseIdentifier: "r", for: indexPath)
    }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { 1 }

    func numberOfSections(in collectionView: CollectionView) -> Int { 20 }

    func collectionView(_ collectionView: CollectionView, analyticsNameForSection section: Int) -> String? { "sc_\(section)" }
}
