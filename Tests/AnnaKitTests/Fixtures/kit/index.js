// The analytics module of the kit's tests.
module.exports = require('anna').configured({ task: __dirname + '/task' });
