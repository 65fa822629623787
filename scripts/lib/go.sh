# Sourced by the set-up scripts that build Temporal with Go.
# Prints the Go toolchain's path: on PATH, or where Go's own archive installs it (/usr/local/go, often not on PATH);
# nothing when there is none.
go_binary() {
  command -v go && return
  [ -x /usr/local/go/bin/go ] && echo /usr/local/go/bin/go
  return 0
}
