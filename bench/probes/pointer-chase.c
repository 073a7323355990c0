/*
 * How long a dependent load takes as its working set grows (docs/design/hot-path.md §41).
 * A random cyclic chain of indices fills a block; 20 million loads follow it, each waiting for
 * the last, so the time a load is the latency of the cache level (or memory) the block fits in.
 *
 *   gcc -O2 bench/probes/pointer-chase.c -o /tmp/pointer-chase && /tmp/pointer-chase
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long next_random(unsigned long long *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static double ns_per_load(size_t bytes) {
  size_t count = bytes / sizeof(size_t);
  size_t *chain = malloc(count * sizeof(size_t));
  size_t *order = malloc(count * sizeof(size_t));
  unsigned long long state = 88172645463325252ULL;
  for (size_t i = 0; i < count; i++) order[i] = i;
  for (size_t i = count - 1; i > 0; i--) {
    size_t j = next_random(&state) % (i + 1);
    size_t swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  for (size_t i = 0; i < count; i++) chain[order[i]] = order[(i + 1) % count];

  const long loads = 20000000;
  volatile size_t sink;
  size_t at = order[0];
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long i = 0; i < loads; i++) at = chain[at];
  clock_gettime(CLOCK_MONOTONIC, &end);
  sink = at;
  (void)sink;
  free(chain);
  free(order);
  return ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / loads;
}

int main(void) {
  const size_t sizes[] = {32 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    printf("%6zu KiB: %6.1f ns a load\n", sizes[i] >> 10, ns_per_load(sizes[i]));
  }
  return 0;
}
