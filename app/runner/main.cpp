// Placeholder: implemented by its owner.
#include <cstdio>
int main() { std::puts("{\"error\":{\"kind\":\"not_implemented\"}}"); return 3; }
