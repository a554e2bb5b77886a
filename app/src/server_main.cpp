// The earshot-server executable: the OpenAI-compatible HTTP server, without Qt, which
// `earshot serve` runs in its place.
#include "server/run_server.h"

int main(int argc, char** argv) { return earshot::server::run_server(argc, argv); }
