// The module of the reference's scenarios (../original) written in TypeScript: the same
// tasks, typed, to show that a TypeScript module gives the same results.
import anna = require('anna');

export = anna.configured({ task: __dirname + '/task' });
