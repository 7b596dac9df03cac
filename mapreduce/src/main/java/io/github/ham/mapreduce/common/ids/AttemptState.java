package io.github.ham.mapreduce.common.ids;

/** Life of one attempt. */
public enum AttemptState { RUNNING, SUCCEEDED, FAILED, KILLED }
