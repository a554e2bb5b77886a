// `earshot-server` (what `earshot serve` runs): the command line, the checks before listening
// (a key for any address beyond loopback, the model loads), and the serving loop.
#pragma once

namespace earshot::server {

// Returns the exit code: 0 after a clean stop (SIGTERM, SIGINT), 2 for a bad argument, a model
// that does not load or an address that cannot be bound.
int run_server(int argc, char** argv);

}  // namespace earshot::server
