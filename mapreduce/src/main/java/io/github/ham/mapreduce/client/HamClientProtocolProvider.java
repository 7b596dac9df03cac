package io.github.ham.mapreduce.client;

import java.io.IOException;
import java.net.InetSocketAddress;

import io.github.ham.mapreduce.common.HamConfig;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.protocol.ClientProtocol;
import org.apache.hadoop.mapreduce.protocol.ClientProtocolProvider;

/** Selected by Hadoop's Cluster when mapreduce.framework.name=ham. */
public class HamClientProtocolProvider extends ClientProtocolProvider {
  @Override
  public ClientProtocol create(Configuration conf) throws IOException {
    if (!HamConfig.FRAMEWORK_NAME.equals(conf.getTrimmed(MRConfig.FRAMEWORK_NAME))) {
      return null;
    }
    return new HamClientProtocol(conf);
  }

  @Override
  public ClientProtocol create(InetSocketAddress addr, Configuration conf) throws IOException {
    return create(conf);
  }

  @Override
  public void close(ClientProtocol clientProtocol) {
    // Jobs keep running until they reach a final state; only connections to drivers close.
    if (clientProtocol instanceof HamClientProtocol ham) {
      ham.close();
    }
  }
}
