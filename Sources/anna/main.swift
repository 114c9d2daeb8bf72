import AnnaCLI

AnnaCommand.runFromCommandLine()
