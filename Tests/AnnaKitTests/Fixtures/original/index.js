// The analytics module of the scenarios ported from the reference's own tests.
module.exports = require('anna').configured({ task: __dirname + '/task' });
