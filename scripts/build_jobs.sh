#!/usr/bin/env bash
# Prints how many compile jobs this machine takes: its cores (those this process may use), at
# most one per 2 GiB of available memory, at least 1.
cores=$(nproc 2>/dev/null || echo 1)
available_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
by_memory=$(( available_kib / (2 * 1024 * 1024) ))
jobs=$(( cores < by_memory ? cores : by_memory ))
echo $(( jobs < 1 ? 1 : jobs ))
