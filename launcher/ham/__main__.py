from ham.cli.main import main

main()
