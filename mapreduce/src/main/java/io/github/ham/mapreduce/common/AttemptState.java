package io.github.ham.mapreduce.common;

/** Life of one attempt. */
public enum AttemptState { RUNNING, SUCCEEDED, FAILED, KILLED }
