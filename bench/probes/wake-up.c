/*
 * What a bare system call and a wake-up of another process cost on this host
 * (docs/design/hot-path.md §47). A round trip of one byte over two pipes between a parent and a
 * child, each blocking in read() until the other writes, is two wake-ups: each the time the
 * kernel takes to put one process to sleep, wake the other and switch to it. Three placements:
 * both on one core (every wake-up a switch on that core), one on each of two cores (a wake-up
 * across cores, an interrupt from one to the other), and wherever the scheduler puts them. Last,
 * the paced case (docs/design/hot-path.md §60): a round trip across the two cores after 20 ms in
 * which both were idle, as a call at 50 a second finds them, 500 times: its p50, p99 and worst.
 *
 *   gcc -O2 bench/probes/wake-up.c -o /tmp/wake-up && /tmp/wake-up
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { CALLS = 2000000, ROUND_TRIPS = 100000, IDLE_ROUND_TRIPS = 500, IDLE_MS = 20 };

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Runs the calling process on one CPU, or on every CPU when cpu is -1. */
static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (long c = 0; c < cpus; c++) {
    if (cpu < 0 || c == cpu) CPU_SET(c, &set);
  }
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    exit(1);
  }
}

static void must(ssize_t done, const char *what) {
  if (done != 1) {
    perror(what);
    exit(1);
  }
}

/* A child process on child_cpu that answers each byte the parent writes, round_trips times. */
struct echo {
  int there[2], back[2];
  pid_t child;
};

static struct echo start_echo(int child_cpu, int round_trips) {
  struct echo e;
  if (pipe(e.there) != 0 || pipe(e.back) != 0) {
    perror("pipe");
    exit(1);
  }
  e.child = fork();
  if (e.child < 0) {
    perror("fork");
    exit(1);
  }
  if (e.child == 0) {
    char byte;
    pin(child_cpu);
    for (int i = 0; i < round_trips; i++) {
      must(read(e.there[0], &byte, 1), "child read");
      must(write(e.back[1], &byte, 1), "child write");
    }
    _exit(0);
  }
  return e;
}

/* One round trip: a byte to the child and its answer back. */
static void ping(struct echo *e) {
  char byte = 0;
  must(write(e->there[1], &byte, 1), "parent write");
  must(read(e->back[0], &byte, 1), "parent read");
}

static void stop_echo(struct echo *e) {
  waitpid(e->child, NULL, 0);
  close(e->there[0]);
  close(e->there[1]);
  close(e->back[0]);
  close(e->back[1]);
  pin(-1);
}

/* Microseconds a round trip, the parent on parent_cpu and the child on child_cpu
   (-1: not pinned). */
static double round_trip_us(int parent_cpu, int child_cpu) {
  struct echo e = start_echo(child_cpu, ROUND_TRIPS);
  pin(parent_cpu);
  double started = now_ns();
  for (int i = 0; i < ROUND_TRIPS; i++) ping(&e);
  double elapsed = now_ns() - started;
  stop_echo(&e);
  return elapsed / ROUND_TRIPS / 1000;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Microseconds of each of IDLE_ROUND_TRIPS round trips across cores 0 and 1, each after the
   parent slept IDLE_MS with the child blocked: both cores idle. Sorted, into out. */
static void idle_round_trips_us(double *out) {
  struct echo e = start_echo(1, IDLE_ROUND_TRIPS);
  pin(0);
  struct timespec pause = {0, IDLE_MS * 1000000L};
  for (int i = 0; i < IDLE_ROUND_TRIPS; i++) {
    nanosleep(&pause, NULL);
    double started = now_ns();
    ping(&e);
    out[i] = (now_ns() - started) / 1000;
  }
  stop_echo(&e);
  qsort(out, IDLE_ROUND_TRIPS, sizeof *out, by_value);
}

int main(void) {
  double started = now_ns();
  for (int i = 0; i < CALLS; i++) syscall(SYS_getppid);
  printf("a bare system call (getppid):    %6.2f µs\n", (now_ns() - started) / CALLS / 1000);
  printf("a pipe round trip on one core:    %6.2f µs\n", round_trip_us(0, 0));
  if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    printf("a pipe round trip across two:     %6.2f µs\n", round_trip_us(0, 1));
  }
  printf("a pipe round trip, kernel-placed: %6.2f µs\n", round_trip_us(-1, -1));
  if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    static double idle[IDLE_ROUND_TRIPS];
    idle_round_trips_us(idle);
    printf("across two, after %2d ms idle:      %6.2f µs p50, %.2f p99, %.2f worst\n", IDLE_MS,
           idle[IDLE_ROUND_TRIPS / 2], idle[IDLE_ROUND_TRIPS * 99 / 100],
           idle[IDLE_ROUND_TRIPS - 1]);
  }
  return 0;
}
