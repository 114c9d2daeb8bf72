import AnnaServing

/// How many connections the inspector serves at once by default (the rule every server of
/// this package follows; see `AnnaServing.ConnectionCap`).
public typealias ConnectionCap = AnnaServing.ConnectionCap
