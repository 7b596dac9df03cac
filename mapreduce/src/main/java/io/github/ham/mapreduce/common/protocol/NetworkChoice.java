package io.github.ham.mapreduce.common.protocol;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

import io.github.ham.mapreduce.common.HamConfig;

/**
 * The job's network ({@link HamConfig#NETWORK}, the launcher's setting {@code network}): an
 * interface name ({@code ib0}) or an IPv4 subnet ({@code 10.1.0.0/16}). The launcher picks the
 * driver's address on it (launcher/ham/network.py, by the same rules: an interface by its name
 * or a labelled alias of it, {@code ib0:1}; a subnet by any address in it; interfaces that are
 * up). Each runner checks, before it connects, that its node has an address there and that its
 * route to the driver leaves from one; else it exits with {@link #EXIT_NOT_ON_NETWORK}, which the
 * driver turns into the job's failure naming the node. Without the check a node off the network
 * would reach the driver over another one without a word, or time out and be replaced.
 */
public final class NetworkChoice {
  /**
   * A runner's exit status when its node is not on the job's network: sysexits' EX_CONFIG, not
   * a status Hadoop's tasks or the runner's other failures exit with.
   */
  public static final int EXIT_NOT_ON_NETWORK = 78;

  /** One IPv4 address of an interface that is up. */
  public record Address(String iface, Inet4Address address) {
    @Override
    public String toString() {
      return iface + " " + address.getHostAddress();
    }
  }

  private NetworkChoice() {
  }

  /** Whether {@code a} is on network {@code spec}. */
  public static boolean on(String spec, Address a) {
    int slash = spec.indexOf('/');
    if (slash < 0) {
      String name = a.iface();
      int colon = name.indexOf(':');
      return name.equals(spec) || (colon > 0 && name.substring(0, colon).equals(spec));
    }
    int prefix = Integer.parseInt(spec.substring(slash + 1).trim());
    if (prefix < 0 || prefix > 32) {
      throw new IllegalArgumentException("not an IPv4 subnet: " + spec);
    }
    int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
    return (bits(a.address().getAddress()) & mask)
        == (bits(ipv4(spec.substring(0, slash).trim())) & mask);
  }

  /** The 4 bytes of a dotted IPv4 literal (never a name lookup). */
  private static byte[] ipv4(String literal) {
    String[] parts = literal.split("\\.", -1);
    if (parts.length != 4) {
      throw new IllegalArgumentException("not an IPv4 address: " + literal);
    }
    byte[] out = new byte[4];
    for (int i = 0; i < 4; i++) {
      int v = Integer.parseInt(parts[i]);
      if (v < 0 || v > 255) {
        throw new IllegalArgumentException("not an IPv4 address: " + literal);
      }
      out[i] = (byte) v;
    }
    return out;
  }

  private static int bits(byte[] b) {
    return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
  }

  /**
   * What keeps a runner on {@code node} from reaching the driver at {@code driver} over network
   * {@code spec}, in one line, or null if nothing does. {@code addresses}: the node's;
   * {@code source}: the address its route to the driver leaves from (null: no route).
   */
  public static String problem(String spec, String node, String driver, List<Address> addresses,
      InetAddress source) {
    List<Address> there = addresses.stream().filter(a -> on(spec, a)).toList();
    String setting = "setting network, " + HamConfig.NETWORK;
    if (there.isEmpty()) {
      return node + " has no address on network '" + spec + "' (" + setting
          + "); its addresses: " + describe(addresses);
    }
    if (source == null || there.stream().noneMatch(a -> a.address().equals(source))) {
      return node + "'s route to the driver's address " + driver
          + (source == null ? " is missing" : " leaves from " + source.getHostAddress())
          + ", not from its address on network '" + spec + "' ("
          + there.stream().map(Address::toString).collect(Collectors.joining(", ")) + "; "
          + setting + ")";
    }
    return null;
  }

  /** {@link #problem} for this node, looked up. */
  public static String check(String spec, String node, String driverHost) throws IOException {
    return problem(spec, node, driverHost, local(), routeSource(InetAddress.getByName(driverHost)));
  }

  /**
   * The job's failure when the runners on {@code node} (null: the runners' own node, with the
   * local launcher) exited with {@link #EXIT_NOT_ON_NETWORK}.
   */
  public static String jobFailure(String spec, String node) {
    return (node == null ? "The driver's node" : node) + " is not on network '" + spec
        + "' (setting network, " + HamConfig.NETWORK + "): its task runners found no address "
        + "there that reaches the driver, and exited (the job's logs/runners.g*.log say what the "
        + "node has)";
  }

  /** `eth0 10.0.0.5, ib0 10.1.0.5`, by interface name, loopback left out. */
  static String describe(List<Address> addresses) {
    String s = addresses.stream().filter(a -> !a.address().isLoopbackAddress())
        .map(Address::toString).sorted().collect(Collectors.joining(", "));
    return s.isEmpty() ? "none" : s;
  }

  /** This node's IPv4 addresses, of interfaces that are up (labelled aliases included). */
  public static List<Address> local() throws SocketException {
    List<Address> out = new ArrayList<>();
    for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      collect(ni, out);
    }
    return out;
  }

  private static void collect(NetworkInterface ni, List<Address> out) throws SocketException {
    if (!ni.isUp()) {
      return;
    }
    for (InetAddress a : Collections.list(ni.getInetAddresses())) {
      if (a instanceof Inet4Address v4) {
        out.add(new Address(ni.getName(), v4));
      }
    }
    for (NetworkInterface sub : Collections.list(ni.getSubInterfaces())) {
      collect(sub, out);
    }
  }

  /**
   * The local address a connection to {@code to} leaves from, as the kernel's routes choose
   * it (a UDP connect sends nothing), or null if there is no route.
   */
  static InetAddress routeSource(InetAddress to) {
    try (DatagramSocket s = new DatagramSocket()) {
      s.connect(new InetSocketAddress(to, 9));
      return s.getLocalAddress();
    } catch (SocketException | java.io.UncheckedIOException e) {
      return null;
    }
  }
}
