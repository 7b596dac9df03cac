package io.github.ham.mapreduce.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

import io.github.ham.mapreduce.common.protocol.NetworkChoice.Address;

import org.junit.jupiter.api.Test;

/** A runner's check of the job's network (ham.network), on made-up interfaces. */
class NetworkChoiceTest {
  private static Address addr(String iface, String ip) throws Exception {
    return new Address(iface, (Inet4Address) InetAddress.getByName(ip));
  }

  private static final String NODE = "node2";

  @Test
  void anInterfaceMatchesByItsNameOrALabelledAlias() throws Exception {
    assertTrue(NetworkChoice.on("ib0", addr("ib0", "10.1.0.5")));
    assertTrue(NetworkChoice.on("ib0", addr("ib0:1", "10.1.0.6")));
    assertFalse(NetworkChoice.on("ib0", addr("ib01", "10.1.0.5")));
    assertFalse(NetworkChoice.on("ib0", addr("eth0", "10.1.0.5")));
  }

  @Test
  void aSubnetMatchesByAddress() throws Exception {
    assertTrue(NetworkChoice.on("10.202.0.0/24", addr("eth1", "10.202.0.12")));
    assertFalse(NetworkChoice.on("10.202.0.0/24", addr("eth0", "10.200.0.12")));
    // Host bits in the subnet are ignored, as Python's ipaddress does with strict=False.
    assertTrue(NetworkChoice.on("10.202.0.1/29", addr("eth1", "10.202.0.7")));
    assertFalse(NetworkChoice.on("10.202.0.0/29", addr("eth1", "10.202.0.12")));
    assertTrue(NetworkChoice.on("0.0.0.0/0", addr("eth0", "192.0.2.1")));
    assertTrue(NetworkChoice.on("10.202.0.12/32", addr("eth1", "10.202.0.12")));
    assertThrows(IllegalArgumentException.class,
        () -> NetworkChoice.on("10.202.0/24", addr("eth1", "10.202.0.12")));
  }

  @Test
  void aNodeOnTheNetworkWhoseRouteToTheDriverGoesOverItPasses() throws Exception {
    List<Address> node = List.of(addr("lo", "127.0.0.1"), addr("eth0", "10.200.0.12"),
        addr("eth1", "10.202.0.12"));
    assertNull(NetworkChoice.problem("10.202.0.0/24", NODE, "10.202.0.1", node,
        InetAddress.getByName("10.202.0.12")));
    assertNull(NetworkChoice.problem("eth1", NODE, "10.202.0.1", node,
        InetAddress.getByName("10.202.0.12")));
  }

  @Test
  void aNodeWithoutTheNetworkIsNamedWithTheSettingAndWhatItHas() throws Exception {
    List<Address> node = List.of(addr("lo", "127.0.0.1"), addr("eth0", "10.200.0.12"));
    assertEquals("node2 has no address on network 'ib0' (setting network, ham.network); its "
        + "addresses: eth0 10.200.0.12", NetworkChoice.problem("ib0", NODE, "10.202.0.1", node,
            InetAddress.getByName("10.200.0.12")));
    // By name, whatever order the JVM lists interfaces in (newest first on Linux).
    assertTrue(NetworkChoice.problem("ib0", NODE, "10.202.0.1", List.of(
        addr("eth1", "10.202.0.12"), addr("eth0", "10.200.0.12")), null)
        .endsWith("its addresses: eth0 10.200.0.12, eth1 10.202.0.12"));
    assertEquals("node2 has no address on network '10.202.0.0/24' (setting network, "
        + "ham.network); its addresses: none", NetworkChoice.problem("10.202.0.0/24", NODE,
            "10.202.0.1", List.of(addr("lo", "127.0.0.1")), null));
  }

  @Test
  void aRouteToTheDriverOverAnotherNetworkIsRefused() throws Exception {
    // The node is on the network, but the driver's address (driver_address set elsewhere, or
    // another subnet of ib0) is reached over eth0.
    List<Address> node = List.of(addr("eth0", "10.200.0.12"), addr("ib0", "10.202.0.12"));
    String problem = NetworkChoice.problem("ib0", NODE, "10.200.0.1", node,
        InetAddress.getByName("10.200.0.12"));
    assertEquals("node2's route to the driver's address 10.200.0.1 leaves from 10.200.0.12, "
        + "not from its address on network 'ib0' (ib0 10.202.0.12; setting network, "
        + "ham.network)", problem);
    assertTrue(NetworkChoice.problem("ib0", NODE, "10.9.0.1", node, null)
        .contains("route to the driver's address 10.9.0.1 is missing"));
  }

  @Test
  void theJobsFailureNamesTheNodeAndTheSetting() {
    String failure = NetworkChoice.jobFailure("10.202.0.0/29", "node3");
    assertTrue(failure.startsWith("node3 is not on network '10.202.0.0/29' (setting network, "
        + "ham.network)"), failure);
    assertFalse(failure.contains("\n"));
  }

  @Test
  void thisNodesLoopbackIsFoundAndRoutedToItself() throws Exception {
    List<Address> local = NetworkChoice.local();
    assertTrue(local.stream().anyMatch(a -> a.address().isLoopbackAddress()), local.toString());
    assertNull(NetworkChoice.check("127.0.0.0/8", "here", "127.0.0.1"));
  }
}
