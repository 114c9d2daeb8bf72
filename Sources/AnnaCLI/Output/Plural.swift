import CoreJS

/// CoreJS's ``CoreJS/Plural``, for the files of this module that do not import CoreJS.
typealias Plural = CoreJS.Plural
