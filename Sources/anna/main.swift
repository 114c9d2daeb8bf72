import AnnaCLI

AnnaCommand.main()
