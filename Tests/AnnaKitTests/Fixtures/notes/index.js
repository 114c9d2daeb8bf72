// The analytics module of the notes app in RootSwapTests and NodeMoveTests.
module.exports = require('anna').configured({ task: __dirname + '/task' });
