from mcot.cli import main

main()
